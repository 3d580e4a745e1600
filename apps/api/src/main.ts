import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig } from './config';
import { createLarderApp } from './create-app';

async function main(): Promise<void> {
  const config = loadConfig();
  const larder = await createLarderApp(config);
  await larder.app.listen(config.port, config.host);
  const logger = new Logger('Larder');
  logger.log(
    `listening on http://${config.host}:${config.port} ` +
      `(event store: ${larder.infra.eventStore.kind}, bus: ${larder.infra.bus.kind}, database: ${larder.infra.embedded ? 'embedded' : 'server'})`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: shutting down`);
    await larder.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});

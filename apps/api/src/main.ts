import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig } from './config';
import { createLarderApp, exitOnSignals, shutdownTimeoutMs } from './create-app';
import { StartTimeline } from './start-timeline';

async function main(): Promise<void> {
  const timeline = new StartTimeline();
  const config = loadConfig();
  const shutdownMs = shutdownTimeoutMs();
  const larder = await createLarderApp(config, { timeline });
  await larder.app.listen(config.port, config.host);
  timeline.mark('listen');
  const logger = new Logger('Larder');
  logger.log(
    `listening on http://${config.host}:${config.port} ` + `(event store: ${larder.infra.eventStore.kind}, bus: ${larder.infra.bus.kind}, database: ${larder.infra.embedded ? 'embedded' : 'server'})`,
  );
  logger.log(`started in ${timeline.toString()}`);
  exitOnSignals(() => larder.close(), logger, shutdownMs);
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});

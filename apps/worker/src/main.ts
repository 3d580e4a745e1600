import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../../api/src/config';
import { createInfrastructure } from '../../api/src/infrastructure';

/**
 * Server mode: runs every projection and reactor (NATS relay) against DATABASE_URL / EVENTSTORE_URL,
 * for API processes started with LARDER_RUN_WORKER=false. Several workers may run: each projection
 * batch locks its checkpoint row, so none is applied twice.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) throw new Error('the worker needs DATABASE_URL (in embedded mode the API process runs the projections itself)');
  const infra = await createInfrastructure({ ...config, runWorker: true }, { role: 'server', runLoops: true });
  infra.runner.start();
  const logger = new Logger('Worker');
  logger.log(`running projections and reactors (event store: ${infra.eventStore.kind}, bus: ${infra.bus.kind})`);
  const stop = async () => {
    await infra.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});

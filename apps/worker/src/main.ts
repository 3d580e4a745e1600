import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../api/src/app.module';
import { exitOnSignals, logLevels, shutdownTimeoutMs } from '../../api/src/create-app';
import { loadConfig } from '../../api/src/config';
import { createInfrastructure } from '../../api/src/infrastructure';

/**
 * Server mode: runs every projection and reactor (NATS relay), the ingestion worker and the store
 * expiry sweeper against DATABASE_URL / EVENTSTORE_URL, for API processes started with
 * LARDER_RUN_WORKER=false. Several workers may run: each projection batch locks its checkpoint row,
 * and each store file is claimed under a lease, so no work is applied twice.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const shutdownMs = shutdownTimeoutMs();
  if (!config.databaseUrl)
    throw new Error('the worker needs DATABASE_URL (in embedded mode the API process runs the projections itself)');
  const infra = await createInfrastructure({ ...config, runWorker: true }, { role: 'server', runLoops: true });
  infra.runner.start();
  // the application context (no HTTP) runs the stores context's background work
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(infra, { http: false }), {
    logger: logLevels(config.logLevel),
  });
  await app.init();
  const logger = new Logger('Worker');
  logger.log(
    `running projections, reactors and ingestion (event store: ${infra.eventStore.kind}, bus: ${infra.bus.kind})`,
  );
  exitOnSignals(
    async () => {
      await app.close();
      await infra.close();
    },
    logger,
    shutdownMs,
  );
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});

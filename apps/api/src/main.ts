import 'reflect-metadata';
import { statSync } from 'fs';
import { join } from 'path';
import type { Logger } from '@nestjs/common';
import type { EmbeddedPostgres } from '@larder/database';
import { runningEmbeddedDatabase } from '@larder/database/embedded-database-lock';
import { startEmbeddedPostgresThread } from '@larder/database/embedded-postgres.thread';
import { prefetchIvf } from '@larder/chunk-index/embedded/ivf.prefetch';
import { LarderConfig, loadConfig } from './config';
import { StartTimeline } from './start-timeline';

/**
 * The embedded database, started at once in its own thread so that it starts while the server's
 * modules load (null with DATABASE_URL, or when another process holds the data directory: the
 * infrastructure then says so).
 */
function startDatabaseEarly(config: LarderConfig, logger: () => Logger): Promise<EmbeddedPostgres> | null {
  if (config.databaseUrl || runningEmbeddedDatabase(config.dataDir)) return null;
  const started = startEmbeddedPostgresThread({ dataDir: join(config.dataDir, 'pg'), onConnectionError: (err) => logger().warn(err.message) });
  // a failure is the infrastructure's to report (it awaits this promise), not an unhandled rejection meanwhile
  started.catch(() => undefined);
  return started;
}

/**
 * The server's modules: from the one-file bundle `npm run build` writes beside this file
 * (tools/bundle-server.js: a start then reads one file instead of resolving and reading ~2,400), or
 * module by module when there is none, when tsc rebuilt dist/ after it (a bundle of older code is never
 * run), or with LARDER_SERVER_BUNDLE=off.
 */
async function loadServer(): Promise<{ server: typeof import('./create-app'); bundled: boolean }> {
  const bundle = join(__dirname, 'create-app.bundle.js');
  const off = ['off', '0', 'false'].includes(process.env.LARDER_SERVER_BUNDLE ?? '');
  if (!off && !__filename.endsWith('.ts')) {
    const built = (file: string) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? null;
    const bundled = built(bundle);
    // tsc's last writes to dist/ (tsconfig.build.json's and tsconfig.json's incremental build info)
    const compiled = Math.max(...['.tsbuildinfo.build', '.tsbuildinfo'].map((f) => built(join(__dirname, '..', '..', '..', f)) ?? 0));
    if (bundled !== null && bundled >= compiled) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return { server: require(bundle) as typeof import('./create-app'), bundled: true };
    }
  }
  return { server: await import('./create-app'), bundled: false };
}

async function main(): Promise<void> {
  const timeline = new StartTimeline('node');
  const config = loadConfig();
  let infraLogger: Logger | null = null;
  const embedded = startDatabaseEarly(config, () => infraLogger!);
  // the embedded chunk index's IVF lists are read in a worker thread meanwhile too (the index takes them if the file is unchanged)
  const ivfPrefetch = config.chunkIndex === 'embedded' ? prefetchIvf(join(config.dataDir, 'chunk-index', 'chunks.sqlite'), config.ivfPrefetchMinBytes) : null;
  // the rest of the server's modules load now, while the database starts (Nest's Logger from them too: one copy of @nestjs/common)
  const { server, bundled } = await loadServer();
  const { createLarderApp, exitOnSignals, shutdownTimeoutMs, warmUp, Logger } = server;
  infraLogger = new Logger('Infrastructure');
  timeline.mark(bundled ? 'modules (bundle)' : 'modules');
  const shutdownMs = shutdownTimeoutMs();
  const larder = await createLarderApp(config, { timeline, embedded: embedded ?? undefined, ivfPrefetch: ivfPrefetch ?? undefined });
  await larder.app.listen(config.port, config.host);
  timeline.mark('listen');
  const logger = new Logger('Larder');
  logger.log(
    `listening on http://${config.host}:${config.port} ` + `(event store: ${larder.infra.eventStore.kind}, bus: ${larder.infra.bus.kind}, database: ${larder.infra.embedded ? 'embedded' : 'server'})`,
  );
  logger.log(`started in ${timeline.toString()}`);
  // the bundled model's query session starts now rather than with the first search (which then joins it)
  warmUp(larder.infra, logger);
  exitOnSignals(() => larder.close(), logger, shutdownMs);
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});

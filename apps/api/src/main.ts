import 'reflect-metadata';
import { readFileSync, statSync } from 'fs';
import type { IncomingMessage, Server, ServerResponse } from 'http';
import { createServer } from 'net';
import { performance } from 'perf_hooks';
import { join } from 'path';
import type { Logger } from '@nestjs/common';
import type { EmbeddedPostgres } from '@larder/database';
import { runningEmbeddedDatabase } from '@larder/database/embedded-database-lock';
import { startEmbeddedPostgresThread } from '@larder/database/embedded-postgres.thread';
import { prefetchIvf } from '@larder/chunk-index/embedded/ivf.prefetch';
import { prestartUseLiteQuerySession } from '@larder/ai/local/use-lite-onnx.session';
import { LarderConfig, loadConfig } from './config';
import { StartTimeline } from './start-timeline';

/**
 * The embedded database, started at once in its own thread so that it starts while the server's
 * modules load (null with DATABASE_URL, or when another process holds the data directory: the
 * infrastructure then says so).
 */
function startDatabaseEarly(config: LarderConfig, logger: () => Logger): Promise<EmbeddedPostgres> | null {
  if (config.databaseUrl || runningEmbeddedDatabase(config.dataDir)) return null;
  const started = startEmbeddedPostgresThread({
    dataDir: join(config.dataDir, 'pg'),
    sharedBuffersMb: config.pgSharedBuffersMb,
    onConnectionError: (err) => logger().warn(err.message),
  });
  // a failure is the infrastructure's to report (it awaits this promise), not an unhandled rejection meanwhile
  started.catch(() => undefined);
  return started;
}

/**
 * The server's modules: from the one-file bundle `npm run build` writes beside this file
 * (tools/bundle-server.js: a start then reads one file instead of resolving and reading ~2,400), or
 * module by module when there is none, when any file it was made of has changed since (a tsc build or
 * an npm install after it: bundled code of older sources is never run), or with LARDER_SERVER_BUNDLE=off.
 */
async function loadServer(): Promise<{ server: typeof import('./create-app'); bundled: boolean }> {
  const off = ['off', '0', 'false'].includes(process.env.LARDER_SERVER_BUNDLE ?? '');
  if (!off && !__filename.endsWith('.ts') && bundleIsCurrent(join(__dirname, 'create-app.bundle.json'))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { server: require('./create-app.bundle') as typeof import('./create-app'), bundled: true };
  }
  return { server: await import('./create-app'), bundled: false };
}

/** Whether the bundle's manifest exists and every file it lists has the size and modification time it recorded. */
function bundleIsCurrent(manifest: string): boolean {
  try {
    const { files } = JSON.parse(readFileSync(manifest, 'utf8')) as { files: Array<[string, number, number]> };
    return files.every(([file, size, mtimeMs]) => {
      const st = statSync(join(__dirname, file), { throwIfNoEntry: false });
      return st !== undefined && st.size === size && st.mtimeMs === mtimeMs;
    });
  } catch {
    return false;
  }
}

/** One line that says why the server cannot take its address (a port in use, or not permitted), or null for any other error. */
function cannotListen(err: NodeJS.ErrnoException, config: LarderConfig): string | null {
  const where = `${config.host}:${config.port}`;
  if (err?.code === 'EADDRINUSE')
    return `Larder cannot listen on ${where}: the port is in use. Stop what holds it, or set PORT to a free port.`;
  if (err?.code === 'EACCES')
    return `Larder cannot listen on ${where}: not permitted (ports below 1024 need privileges). Set PORT to a port from 1024 up.`;
  if (err?.code === 'EADDRNOTAVAIL')
    return `Larder cannot listen on ${where}: this machine has no such address. Set HOST to one of its addresses (or 0.0.0.0).`;
  return null;
}

/** Whether the server's address can be taken: tried before anything starts, so a busy port ends the start at once, with one line. */
function probeListen(config: LarderConfig): Promise<NodeJS.ErrnoException | null> {
  if (!config.port) return Promise.resolve(null);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    probe.listen(config.port, config.host, () => probe.close(() => resolve(null)));
  });
}

/** Says why the server cannot listen and ends the process; rethrows any other error. */
function exitUnlessListenable(err: unknown, config: LarderConfig): void {
  const why = cannotListen(err as NodeJS.ErrnoException, config);
  if (!why) throw err;
  // eslint-disable-next-line no-console
  console.error(why);
  process.exit(1);
}

/** Logs once when the first search is answered: start → listening → first search, in ms since the process started. */
function logFirstSearch(server: Server, logger: Logger, listeningMs: number): void {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || !/^\/v1\/(stores|vector_stores\/[^/]+)\/search(\?|$)/.test(req.url ?? '')) return;
    server.off('request', onRequest);
    res.once('finish', () => {
      const at = performance.now();
      logger.log(
        `first search answered (${res.statusCode}) ${Math.round(at)} ms after the start, ${Math.round(at - listeningMs)} ms after listening`,
      );
    });
  };
  server.on('request', onRequest);
}

async function main(): Promise<void> {
  const timeline = new StartTimeline('node');
  const config = loadConfig();
  const busy = await probeListen(config);
  if (busy) exitUnlessListenable(busy, config);
  let infraLogger: Logger | null = null;
  const embedded = startDatabaseEarly(config, () => infraLogger!);
  // the embedded chunk index's IVF lists are read in a worker thread meanwhile too (the index takes them if the file is unchanged)
  const ivfPrefetch =
    config.chunkIndex === 'embedded'
      ? prefetchIvf(join(config.dataDir, 'chunk-index', 'chunks.sqlite'), config.ivfPrefetchMinBytes)
      : null;
  // the bundled model's query session (a thread: its graph built, the runtime loaded, one query run) starts now too:
  // the first search finds it ready rather than starting it
  const querySession =
    config.embedder === 'use-lite' && config.useLiteRuntime === 'onnx'
      ? prestartUseLiteQuerySession(config.embedWorkers.queryThreads)
      : null;
  // the rest of the server's modules load now, while the database starts (Nest's Logger from them too: one copy of @nestjs/common)
  const { server, bundled } = await loadServer();
  const { createLarderApp, exitOnSignals, shutdownTimeoutMs, warmUp, logMemory, Logger } = server;
  infraLogger = new Logger('Infrastructure');
  timeline.mark(bundled ? 'modules (bundle)' : 'modules');
  const shutdownMs = shutdownTimeoutMs();
  const larder = await createLarderApp(config, {
    timeline,
    embedded: embedded ?? undefined,
    ivfPrefetch: ivfPrefetch ?? undefined,
    querySession,
  });
  try {
    await larder.app.listen(config.port, config.host);
  } catch (err) {
    // taken since the probe
    await larder.close().catch(() => undefined);
    exitUnlessListenable(err, config);
  }
  timeline.mark('listen');
  const logger = new Logger('Larder');
  logger.log(
    `listening on http://${config.host}:${config.port} ` +
      `(event store: ${larder.infra.eventStore.kind}, bus: ${larder.infra.bus.kind}, database: ${larder.infra.embedded ? 'embedded' : 'server'})`,
  );
  logger.log(`started in ${timeline.toString()}`);
  logFirstSearch(larder.app.getHttpServer() as Server, logger, performance.now());
  // the embedded index's lexical preload begins now (deferred while the server started), and the bundled model's query session is awaited (started above);
  // then the memory it all holds is logged
  void warmUp(larder.infra, logger).then(() => logMemory(larder, logger));
  exitOnSignals(() => larder.close(), logger, shutdownMs);
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});

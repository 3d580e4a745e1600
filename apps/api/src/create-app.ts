import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'http';
import { stampRequestStart, withReadLagReporting, withTimings } from '@larder/kernel';
import { AppModule } from './app.module';
import { bootstrapRootKey, knownRootKey, RootKeyResult } from './bootstrap-root-key';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { OrganizationsReader } from '@larder/projections/organizations/organizations.reader';
import { LarderConfig } from './config';
import { createInfrastructure, Infrastructure } from './infrastructure';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { LarderValidationPipe } from './http/validation.pipe';
import { jsonBodyMiddleware } from './http/json-body.middleware';
import { buildOpenApi, serveOpenApi } from './http/openapi';
import { consoleDir, serveConsole, uploadOrigins } from './http/console';
import { LARDER_VERSION } from './http/info.http.controller';
import type { StartTimeline } from './start-timeline';
import { LarderMetrics } from './metrics/larder-metrics';
import { describeMemory, memoryReport } from './metrics/memory-report';
import { IngestionWorker } from '@larder/stores';
import { Retrieval, SearchActivity, SearchAdmission } from '@larder/search';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import type { IvfPrefetch } from '@larder/chunk-index/embedded/ivf.prefetch';
import type { UseLiteOnnxSession } from '@larder/ai/local/use-lite-onnx.session';
import type { EmbeddedPostgres } from '@larder/database';

/** Nest's logger, for main.ts (which loads the server's modules through this one, possibly bundled). */
export { Logger };

async function untilKeyReadable(reader: ApiKeysReader, key: RootKeyResult, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await reader.get(key.organizationId, key.apiKeyId))) {
    if (Date.now() > deadline)
      throw new Error(`the root key ${key.apiKeyId} is stored but its read model did not show it within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface LarderApp {
  app: INestApplication;
  infra: Infrastructure;
  rootKey: RootKeyResult;
  /** Drains: stops accepting connections, lets in-flight requests finish, then closes the app and the adapters. */
  close(): Promise<void>;
}

export function logLevels(level: LarderConfig['logLevel']): LogLevel[] {
  const all: LogLevel[] = ['error', 'warn', 'log', 'debug'];
  return all.slice(0, all.indexOf(level) + 1);
}

/** Builds the whole HTTP server (not yet listening) from configuration. */
export async function createLarderApp(
  config: LarderConfig,
  options: {
    timeline?: StartTimeline;
    embedded?: Promise<EmbeddedPostgres>;
    ivfPrefetch?: IvfPrefetch;
    querySession?: UseLiteOnnxSession | null;
  } = {},
): Promise<LarderApp> {
  Logger.overrideLogger(logLevels(config.logLevel));
  // the chunk index opens (its IVF lists taken from the prefetch worker) while the HTTP app is built below
  const infra = await createInfrastructure(config, {
    role: 'server',
    timeline: options.timeline,
    embedded: options.embedded,
    ivfPrefetch: options.ivfPrefetch,
    querySession: options.querySession,
    indexOpenLater: true,
  });
  try {
    // the index's read worker (a thread of its own: it opens the file read-only and loads the lexical search) starts now, beside the rest of the start, not with the first search;
    // its lexical preload once the server listens (warmUp below)
    infra.chunkIndex.warmUp?.({ deferBackground: true });
    // a restart's root key found in its read models needs no command: looked up now, ahead of the loops' first reads
    const knownKey = knownRootKey(config, {
      organizations: new OrganizationsReader(infra.dataSource),
      apiKeys: new ApiKeysReader(infra.dataSource),
    });
    infra.runner.start();
    const metrics = config.metrics ? new LarderMetrics() : undefined;
    const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(infra, { metrics }), {
      logger: logLevels(config.logLevel),
      bodyParser: false,
    });
    options.timeline?.mark('nest modules');
    // the first middleware: when the server began on the request (a search's `Server-Timing: total`), its timing scope (the steps of its Server-Timing) and its read-lag scope
    app.use((req: object, res: Parameters<typeof withReadLagReporting>[0], next: () => void) => {
      stampRequestStart(req);
      withTimings(() => withReadLagReporting(res, next));
    });
    if (metrics) {
      app.use(metrics.middleware());
      metrics.attach({
        runner: infra.runner,
        searchActivity: app.get(SearchActivity),
        searchAdmission: app.get(SearchAdmission),
        retrieval: app.get(Retrieval),
        ingestion: app.get(IngestionWorker),
        storeFiles: app.get(StoreFilesReader),
        chunkIndex: infra.chunkIndex,
        embedded: infra.embedded,
        bus: infra.bus,
      });
    }
    app.use(jsonBodyMiddleware(config.jsonLimit));
    app.useGlobalPipes(new LarderValidationPipe());
    app.getHttpAdapter().getInstance().disable('x-powered-by');
    // the document is built on its first request: a start does not pay for it
    serveOpenApi(app, () => buildOpenApi(app, LARDER_VERSION, { console: config.console }));
    if (config.console) serveConsole(app, consoleDir(), { connectOrigins: uploadOrigins(config) });
    options.timeline?.mark('openapi');
    await app.init();
    options.timeline?.mark('nest init');
    const rootKey = await bootstrapRootKey(app.get(CommandBus), config, knownKey);
    // The root key's write is stored even when its read model was late; the server opens only once the
    // key authenticates (however short LARDER_CONSISTENCY_TIMEOUT_MS is), or gives up after a minute.
    await untilKeyReadable(app.get(ApiKeysReader), rootKey, 60_000);
    options.timeline?.mark('root key');
    // nothing before this touches the chunk index (it serves requests only, and its loop starts once it is open)
    await infra.runner.externalReady;
    options.timeline?.mark('index');
    let closing: Promise<void> | null = null;
    return {
      app,
      infra,
      rootKey,
      close() {
        closing ??= (async () => {
          await stopAccepting(app);
          await app.close();
          await infra.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await infra.close();
    throw err;
  }
}

/**
 * Stops accepting connections and waits for the requests in flight (Nest's own close runs the
 * modules' destroy hooks before it closes the server). Keep-alive connections are closed as soon as
 * they are idle.
 */
async function stopAccepting(app: INestApplication): Promise<void> {
  const server = app.getHttpServer() as Server;
  if (!server?.listening) return;
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  try {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  } finally {
    clearInterval(idle);
  }
}

/**
 * Once the server listens: begins the embedded index's lexical preload (deferred while it started), and
 * awaits the bundled embedder's query session (main.ts starts it with the process; started here where it
 * was not), so that no search starts it: a local model, so nothing is sent anywhere. A failure is
 * logged here and is the first search's to report.
 */
export async function warmUp(infra: Infrastructure, logger: Logger): Promise<void> {
  // the embedded index's lexical preload, deferred while the server started
  infra.chunkIndex.startBackground?.();
  if (!(infra.embedder instanceof UseLiteEmbedder)) return;
  await infra.embedder
    .embed(['warm up'], 'query')
    .catch((err: Error) => logger.warn(`warming up the embedder: ${err?.message ?? String(err)}`));
}

/** Logs the process's memory by part and every cache's bound (the idle budget), once the start's warm-up is done. */
export async function logMemory(larder: LarderApp, logger: Logger): Promise<void> {
  try {
    const report = await memoryReport({
      embedded: larder.infra.embedded,
      chunkIndex: larder.infra.chunkIndex,
      retrieval: larder.app.get(Retrieval),
      bus: larder.infra.bus,
    });
    logger.log(describeMemory(report));
  } catch (err) {
    logger.warn(`reading the process's memory: ${(err as Error)?.message ?? String(err)}`);
  }
}

/** LARDER_SHUTDOWN_TIMEOUT_MS (default 10000): how long a drain on SIGTERM or SIGINT may take. */
export function shutdownTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.LARDER_SHUTDOWN_TIMEOUT_MS;
  if (v === undefined || v === '') return 10_000;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`LARDER_SHUTDOWN_TIMEOUT_MS must be a non-negative integer, got ${v}`);
  return n;
}

/**
 * SIGTERM and SIGINT always end the process: `drain` runs (stop accepting, let in-flight requests
 * finish, stop the loops, close the adapters) and the process exits 0; a drain that fails or takes
 * longer than `timeoutMs` is logged and the process exits 1; a second signal exits 1 at once.
 */
export function exitOnSignals(drain: () => Promise<void>, logger: Logger, timeoutMs: number): void {
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.error(`${signal} again: exiting without finishing the drain`);
      process.exit(1);
    }
    draining = true;
    logger.log(`${signal}: draining (in-flight requests finish; at most ${timeoutMs} ms)`);
    const force = setTimeout(() => {
      logger.error(
        `${signal}: the drain did not finish within ${timeoutMs} ms (LARDER_SHUTDOWN_TIMEOUT_MS); exiting anyway`,
      );
      process.exit(1);
    }, timeoutMs);
    drain().then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err: Error) => {
        logger.error(`${signal}: the drain failed: ${err?.message ?? err}`, err?.stack);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

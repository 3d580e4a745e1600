import { mkdirSync } from 'fs';
import { join } from 'path';
import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { EventStore } from '@larder/event-store';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { MessageBus, EventRelayReactor } from '@larder/message-bus';
import { InProcessMessageBus } from '@larder/message-bus/in-process/in-process.message-bus';
import type { EmbeddedPostgres } from '@larder/database';
import { ensureDatabase } from '@larder/database/server-database';
import {
  publishEmbeddedDatabase,
  runningEmbeddedDatabase,
  unpublishEmbeddedDatabase,
} from '@larder/database/embedded-database-lock';
import { ProjectionRunner, Reactor } from '@larder/projections/runner';
import { allProjections, READ_MODEL_ENTITIES } from '@larder/projections';
import { BlobStorage, BucketConnector, RoutingBlobStorage } from '@larder/blob-storage';
import { BucketObjectsReactor, BucketStorages } from '@larder/buckets';
import { BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { ChunkIndex } from '@larder/chunk-index';
import { Embedder, Llm, Ocr, Transcriber } from '@larder/ai';
import { MEDIA_TEMP, missingForMedia, type MediaTools } from '@larder/ingestion';
import { TesseractOcr } from '@larder/ai/local/tesseract.ocr';
import { HttpReranker } from '@larder/ai/http/http.reranker';
import { ActivityStreamReactor } from '@larder/activity';
import { StoreCopyReactor } from '@larder/stores';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { Position, ProjectionName, RandomIdGenerator, SystemClock } from '@larder/kernel';
import type { Reranker, WebSearch } from '@larder/search';
import { ChunkIndexProjection } from '@larder/projections/chunk-index/chunk-index.projection';
import { OutboundPolicy } from '@larder/outbound';
import { AesGcmSecretBox, KeyringSource, SecretBox, SecretVault } from '@larder/secrets';
import { PostgresSecretVault } from '@larder/secrets/postgres/postgres.secret-vault';
import { TraceDeliveries, TraceDeliverySignal, TraceExportReactor } from '@larder/trace-destinations';
import { PostgresTraceDeliveries } from '@larder/trace-destinations/postgres/postgres.trace-deliveries';
import { TraceDestinationsReader } from '@larder/projections/trace-destinations/trace-destinations.reader';
import { LarderConfig } from './config';
import type { StartTimeline } from './start-timeline';
import type { IvfPrefetch } from '@larder/chunk-index/embedded/ivf.prefetch';
import type { UseLiteOnnxSession } from '@larder/ai/local/use-lite-onnx.session';
import { createBucketConnector, createPlatformBlobStorage } from './adapters/blob-storage';
import { createChunkIndex } from './adapters/chunk-index';
import { keyringSource, signingSecret } from './adapters/keys';
import { createMedia } from './adapters/media';
import { createEmbedder, createLlm, createReranker } from './adapters/models';
import { createWebSearch } from './adapters/web-search';

export interface Infrastructure {
  config: LarderConfig;
  databaseUrl: string;
  embedded: EmbeddedPostgres | null;
  pool: Pool;
  dataSource: DataSource;
  eventStore: EventStore;
  bus: MessageBus;
  runner: ProjectionRunner;
  /** Platform storage, with `buckets/<id>/…` keys routed to customer buckets. */
  blobs: BlobStorage;
  /** Connects to customer buckets (S3 protocol, STS for assume_role), through the outbound policy. */
  bucketConnector: BucketConnector;
  /** Customer buckets by id with their current credentials; also records a bucket's failures (BUCKET_HEALTH). */
  bucketStorages: BucketStorages;
  chunkIndex: ChunkIndex;
  embedder: Embedder;
  /** The cross-encoder behind `rerank` (LARDER_RERANKER), or null when none is configured: the hybrid fusion is then the ranking. */
  reranker: Reranker | null;
  /** The chat model behind LARDER_LLM_URL, or null when none is configured (answering then runs without one). */
  llm: Llm | null;
  /** Reads images for ingestion (LARDER_OCR), or null when turned off: images then fail as unsupported. */
  ocr: Ocr | null;
  /** Recognises speech in audio and video (LARDER_TRANSCRIBER), or null: they then fail as unsupported. */
  transcriber: Transcriber | null;
  /** ffmpeg and ffprobe with the media bounds, or null where they are not installed. */
  media: MediaTools | null;
  /** The web store's providers (LARDER_WEB_SEARCH_PROVIDERS, LARDER_SEARXNG_URL, LARDER_BRAVE_API_KEY), or null when none is configured. */
  webSearch: WebSearch | null;
  signingSecret: string;
  /** Where the master keys come from (LARDER_SECRETS_KEY or the keyring file in the data directory). */
  keyring: KeyringSource;
  /** Seals stored credentials (bucket keys, trace destination credentials). */
  secretBox: SecretBox;
  /** The sealed credentials themselves; events carry only their references. */
  secretVault: SecretVault;
  /** Where tenant-supplied URLs may lead (LARDER_OUTBOUND_ALLOW). */
  outbound: OutboundPolicy;
  /** The trace export queue (runs waiting per destination) and delivery outcomes. */
  traceDeliveries: TraceDeliveries;
  /** Wakes this process's delivery loop when its export reactor queued runs. */
  traceDeliverySignal: TraceDeliverySignal;
  close(): Promise<void>;
}

/**
 * Chooses and starts every adapter from configuration: embedded Postgres unless DATABASE_URL, the
 * Postgres event store unless EVENTSTORE_URL, the in-process bus unless NATS_URL.
 */
export async function createInfrastructure(
  config: LarderConfig,
  options: {
    runLoops?: boolean;
    reactors?: boolean;
    role?: 'server' | 'cli';
    timeline?: StartTimeline;
    embedded?: Promise<EmbeddedPostgres>;
    /** The embedded chunk index's IVF lists, read in a worker thread since the process began (main.ts). */
    ivfPrefetch?: IvfPrefetch;
    /** The bundled model's query session, started with the process (main.ts). */
    querySession?: UseLiteOnnxSession | null;
    /**
     * Whether to return before the chunk index is open (default false: it is open on return): the server
     * builds its HTTP app meanwhile and awaits `runner.externalReady` before it listens.
     */
    indexOpenLater?: boolean;
  } = {},
): Promise<Infrastructure> {
  const logger = new Logger('Infrastructure');
  const mark = (step: string) => options.timeline?.mark(step);
  let embedded: EmbeddedPostgres | null = null;
  let databaseUrl: string;
  if (!config.databaseUrl) {
    const running = runningEmbeddedDatabase(config.dataDir);
    if (running && options.role === 'cli') {
      databaseUrl = running; // talk to the live server's embedded database
    } else {
      if (running) {
        await options.embedded?.then((pg) => pg.stop()).catch(() => undefined);
        throw new Error(`Another Larder process is using ${config.dataDir}; stop it or set LARDER_DATA_DIR.`);
      }
      mkdirSync(config.dataDir, { recursive: true });
      // started by the caller already (in its own thread, while the modules loaded), or here
      embedded = await (options.embedded ??
        (await import('@larder/database/embedded-postgres')).startEmbeddedPostgres({
          dataDir: join(config.dataDir, 'pg'),
          sharedBuffersMb: config.pgSharedBuffersMb,
          onConnectionError: (err) => logger.warn(err.message),
        }));
      databaseUrl = embedded.url;
      if (options.role !== 'cli') publishEmbeddedDatabase(config.dataDir, embedded.url);
      logger.log(`embedded Postgres (PGlite) on ${embedded.url}, data in ${join(config.dataDir, 'pg')}`);
    }
  } else {
    databaseUrl = config.databaseUrl;
    await ensureDatabase(databaseUrl);
  }
  mark('database');

  // a call the database never answers fails (503 to its request) instead of holding a connection forever
  const pool = new Pool({
    connectionString: databaseUrl,
    max: 10,
    query_timeout: config.dbQueryTimeoutMs,
    connectionTimeoutMillis: config.dbQueryTimeoutMs,
  });
  pool.on('error', (err) => logger.warn(`idle database connection failed: ${err.message}`));
  const dataSource = new DataSource({
    type: 'postgres',
    url: databaseUrl,
    entities: READ_MODEL_ENTITIES,
    synchronize: false,
    extra: { max: 10, query_timeout: config.dbQueryTimeoutMs, connectionTimeoutMillis: config.dbQueryTimeoutMs },
  });
  await dataSource.initialize();
  mark('read models');

  let eventStore: EventStore;
  if (config.eventStoreUrl) {
    const { EsdbEventStore } = await import('@larder/event-store/esdb/esdb.event-store');
    eventStore = EsdbEventStore.fromConnectionString(config.eventStoreUrl);
  } else {
    const pg = new PostgresEventStore(pool, {
      schema: config.eventStoreSchema,
      listen: !embedded && !!config.databaseUrl,
      appendStatements: config.databaseUrl ? 4 : 1,
    });
    await pg.setup();
    eventStore = pg;
  }

  // the adapters a configuration does not use (EventStoreDB, NATS, S3, Elasticsearch) are not even loaded
  const bus: MessageBus = config.natsUrl
    ? await (
        await import('@larder/message-bus/nats/nats.message-bus')
      ).NatsMessageBus.connect({
        url: config.natsUrl,
        stream: config.natsStream,
        subjects: [`${config.natsSubjectPrefix}.>`],
      })
    : new InProcessMessageBus({ retainBytes: config.busRetainMb * 2 ** 20 });

  const platformBlobs = await createPlatformBlobStorage(config);

  const keyring = keyringSource(config);
  const secretBox = new AesGcmSecretBox(keyring);
  const secretVault = new PostgresSecretVault(pool, secretBox);
  await secretVault.setup();
  const outbound = new OutboundPolicy(config.outboundAllow);
  const traceDeliveries = new PostgresTraceDeliveries(pool);
  await traceDeliveries.setup();
  const traceDeliverySignal = new TraceDeliverySignal();
  mark('event store and vaults');

  const bucketConnector = createBucketConnector(config, outbound);
  const bucketStorages = new BucketStorages(
    new BucketsReader(dataSource),
    secretVault,
    bucketConnector,
    eventStore,
    new SystemClock(),
    new RandomIdGenerator(),
  );
  const blobs: BlobStorage = new RoutingBlobStorage(platformBlobs, bucketStorages);

  const chunkIndex = createChunkIndex(config, options.ivfPrefetch);
  const embedder = createEmbedder(config, options.querySession);
  const reranker = createReranker(config);
  if (reranker && options.role !== 'cli')
    logger.log(
      `reranker ${reranker.model}${reranker instanceof HttpReranker ? ` at ${reranker.endpoint} (${config.rerankerFormat} format)` : ''}`,
    );
  const llm = createLlm(config);
  if (llm && options.role !== 'cli') logger.log(`LLM ${llm.model} at ${llm.endpoint}`);
  const webSearch = createWebSearch(config);
  // the tesseract worker thread starts with the first image and stops after a minute without one
  const ocr = config.ocr ? new TesseractOcr({ timeoutMs: config.ocrTimeoutMs, idleMs: 60_000 }) : null;
  const media = createMedia(config);
  if (options.role !== 'cli')
    logger.log(
      media.tools && media.transcriber
        ? `audio and video: ${media.transcriber.engine}, ${media.tools.ffmpeg}`
        : `audio and video are refused: ${missingForMedia({ transcriber: media.transcriber, media: media.tools })}`,
    );
  if (webSearch && options.role !== 'cli') logger.log(`web search providers: ${webSearch.providers.join(', ')}`);

  // the copy process manager waits on the stores read model, which the runner built below maintains
  const consistency = { waitFor: (names: readonly ProjectionName[], at: Position | null) => runner.waitFor(names, at) };
  const storeFiles = new StoreFilesReader(dataSource);
  const copySource = {
    completedFilesOf: async (storeId: string) =>
      (await storeFiles.allOfStore(storeId)).filter((f) => f.status === 'completed'),
  };
  const reactors: Reactor[] =
    options.reactors === false
      ? []
      : [
          new EventRelayReactor(bus, config.natsSubjectPrefix),
          new ActivityStreamReactor(eventStore),
          new StoreCopyReactor(eventStore, consistency, copySource, new SystemClock(), new RandomIdGenerator()),
          new BucketObjectsReactor(bucketStorages, secretVault),
          new TraceExportReactor(
            eventStore,
            consistency,
            new TraceDestinationsReader(dataSource),
            traceDeliveries,
            secretVault,
            new SystemClock(),
            traceDeliverySignal,
          ),
        ];
  const runner: ProjectionRunner = new ProjectionRunner(eventStore, dataSource, allProjections(), reactors, {
    consistencyTimeoutMs: config.consistencyTimeoutMs,
    runLoops: options.runLoops ?? config.runWorker,
    // an API process beside a separate worker keeps its own embedded chunk index up to date (a replica
    // per process); a shared Elasticsearch index is filled by the worker alone
    externalLoops:
      (options.runLoops ?? config.runWorker) || (options.role === 'server' && config.chunkIndex === 'embedded'),
    // Embedded: appends come from this process (which nudges the loops) or, rarely, from the CLI
    // beside it, so a slow poll suffices and the single-threaded database stays free for requests.
    pollMs: embedded ? 500 : 25,
    external: [new ChunkIndexProjection(chunkIndex, blobs)],
  });
  mark('adapters');
  await runner.setup({ awaitExternal: !options.indexOpenLater });
  mark(options.indexOpenLater ? 'projections' : 'projections and index');

  // temporary files of writes cut off by a crash (kill -9 mid upload) are removed at start and every few
  // minutes: a dead process's of this host at once, others once untouched for TEMP_AGE_MS
  const TEMP_AGE_MS = 15 * 60_000;
  const sweepTemporary = () =>
    Promise.all([blobs.sweepTemporary?.(TEMP_AGE_MS) ?? 0, MEDIA_TEMP.sweep(TEMP_AGE_MS)])
      .then(([a, b]) => a + b)
      .then((n) => n && logger.log(`removed ${n} temporary file${n === 1 ? '' : 's'} left by an interrupted write`))
      .catch((err: Error) => logger.warn(`sweeping temporary files: ${err.message}`));
  let sweeper: NodeJS.Timeout | null = null;
  if (options.role !== 'cli') {
    void sweepTemporary();
    sweeper = setInterval(() => void sweepTemporary(), 5 * 60_000);
    sweeper.unref();
  }

  return {
    blobs,
    bucketConnector,
    bucketStorages,
    chunkIndex,
    embedder,
    reranker,
    llm,
    webSearch,
    ocr,
    transcriber: media.transcriber,
    media: media.tools,
    signingSecret: signingSecret(config),
    keyring,
    secretBox,
    secretVault,
    outbound,
    traceDeliveries,
    traceDeliverySignal,
    config,
    databaseUrl,
    embedded,
    pool,
    dataSource,
    eventStore,
    bus,
    runner,
    async close() {
      if (sweeper) clearInterval(sweeper);
      await runner.stop();
      await embedder.close().catch(() => undefined);
      await reranker?.close().catch(() => undefined);
      await ocr?.close().catch(() => undefined);
      await media.transcriber?.close().catch(() => undefined);
      await chunkIndex.close().catch(() => undefined);
      bucketConnector.close();
      await bus.close().catch(() => undefined);
      await eventStore.close().catch(() => undefined);
      await dataSource.destroy().catch(() => undefined);
      await pool.end().catch(() => undefined);
      if (embedded) {
        await embedded.stop();
        if (options.role !== 'cli') unpublishEmbeddedDatabase(config.dataDir);
      }
    },
  };
}

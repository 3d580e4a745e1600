import { Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ChunkIndex } from '@larder/chunk-index';
import type { ProjectionRunner } from '@larder/projections/runner';
import type { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import type { IngestionWorker } from '@larder/stores';
import type { Retrieval, SearchActivity, SearchAdmission } from '@larder/search';
import type { EmbeddedPostgres } from '@larder/database';
import type { MessageBus } from '@larder/message-bus';
import { processMemory } from './memory-report';

/** Lag is counted up to this many events per projection, as `GET /health/ready` counts it. */
const MAX_LAG = 1000;

/** What the scrape reads: counters the services keep, and the two counts health reads from the database too. */
export interface MetricSources {
  runner: ProjectionRunner;
  searchActivity: SearchActivity;
  searchAdmission: SearchAdmission;
  retrieval: Retrieval;
  ingestion: IngestionWorker;
  storeFiles: StoreFilesReader;
  chunkIndex: ChunkIndex;
  /** The embedded database (null with DATABASE_URL): its WebAssembly memory is a part of `larder_memory_bytes`. */
  embedded: EmbeddedPostgres | null;
  /** The bus: what the in-process bus keeps of the domain events (nothing is reported for NATS, which keeps them itself). */
  bus: MessageBus;
}

type Req = { method: string; baseUrl?: string; route?: { path?: unknown } };
type Res = { statusCode: number; once(event: 'finish' | 'close', fn: () => void): unknown };

/**
 * The Prometheus series of one app (a registry of its own: tests start several apps in one process).
 * Request latency and in-flight requests come from a middleware; everything else is read when
 * `/metrics` is scraped, from counters in memory, except projection lag and the ingestion queue,
 * which are counted in the database as `/health/ready` counts them.
 */
export class LarderMetrics {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private readonly duration = new Histogram({
    name: 'larder_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly inFlight = new Gauge({
    name: 'larder_http_requests_in_flight',
    help: 'HTTP requests being answered',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Express middleware: times every request under its route template (`/v1/stores/:store_identifier`; `unmatched` when no route took it). */
  middleware() {
    return (req: Req, res: Res, next: () => void): void => {
      const end = this.duration.startTimer();
      this.inFlight.inc();
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.inFlight.dec();
        const route = typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : 'unmatched';
        end({ method: req.method, route, status_class: `${Math.floor(res.statusCode / 100)}xx` });
      };
      res.once('finish', finish);
      res.once('close', finish);
      next();
    };
  }

  /** Registers the series read at each scrape. */
  attach(s: MetricSources): void {
    const registers = [this.registry];
    const logger = this.logger;
    new Gauge({
      name: 'larder_search_in_flight',
      help: 'Searches under way in this process',
      registers,
      collect() {
        this.set(s.searchActivity.searchesInFlight);
      },
    });
    this.searchAdmission(s.searchAdmission);
    new Gauge({
      name: 'larder_query_embedding_cache_entries',
      help: 'Query embeddings kept for repeated queries',
      registers,
      collect() {
        this.set(s.retrieval.stats().queryEmbeddings);
      },
    });
    new Gauge({
      name: 'larder_query_embedding_cache_bytes',
      help: 'Bytes the kept query embeddings take (vectors and queries)',
      registers,
      collect() {
        this.set(s.retrieval.stats().queryEmbeddingBytes);
      },
    });
    new Gauge({
      name: 'larder_query_embedding_cache_capacity_bytes',
      help: 'Bytes the cache of query embeddings keeps at most',
      registers,
      collect() {
        this.set(s.retrieval.stats().queryEmbeddingCapacityBytes);
      },
    });
    new Gauge({
      name: 'larder_projection_lag_events',
      help: `Events a projection or reactor is behind the head of the log (counted up to ${MAX_LAG})`,
      labelNames: ['projection', 'kind'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          for (const r of await s.runner.status({ maxLag: MAX_LAG }))
            this.set({ projection: r.name, kind: r.kind }, r.lag);
        } catch (err) {
          logger.warn(`reading projection lag: ${(err as Error)?.message ?? String(err)}`);
        }
      },
    });
    new Gauge({
      name: 'larder_ingestion_queue_files',
      help: 'Store files waiting for ingestion (pending) or being ingested (in_progress), all stores',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          const q = await s.storeFiles.queueCounts();
          this.set({ status: 'pending' }, q.pending);
          this.set({ status: 'in_progress' }, q.inProgress);
        } catch (err) {
          logger.warn(`counting the ingestion queue: ${(err as Error)?.message ?? String(err)}`);
        }
      },
    });
    this.chunkIndexCaches(s.chunkIndex);
    this.busRetention(s.bus);
    new Gauge({
      name: 'larder_memory_bytes',
      help: 'Process memory by part: resident (the whole), js_heap, external, embedded_database (WebAssembly), native (the rest)',
      labelNames: ['part'] as const,
      registers,
      async collect() {
        this.reset();
        for (const [part, bytes] of Object.entries((await processMemory(s.embedded)).parts)) this.set({ part }, bytes);
      },
    });
    new Gauge({
      name: 'larder_ingestion_running_files',
      help: 'Store files this process is ingesting now',
      registers,
      collect() {
        this.set(s.ingestion.running);
      },
    });
    new Counter({
      name: 'larder_ingestion_files_total',
      help: 'Store files this process ingested',
      registers,
      collect() {
        this.reset();
        this.inc(s.ingestion.ingested.files);
      },
    });
    new Gauge({
      name: 'larder_ingestion_embed_queue_texts',
      help: 'Chunk texts of the files being ingested that wait for the embedding model',
      registers,
      collect() {
        this.set(s.ingestion.embedding.waiting);
      },
    });
    const batchSeconds = new Histogram({
      name: 'larder_ingestion_embed_batch_seconds',
      help: 'Time the embedding model took for one batch of ingested chunks',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const embedded = new Counter({
      name: 'larder_ingestion_embedded_texts_total',
      help: 'Chunk texts the embedding model embedded for ingestion (batches of them; vectors already stored are not embedded again)',
      registers,
    });
    s.ingestion.embedding.onBatch(({ texts, seconds }) => {
      batchSeconds.observe(seconds);
      embedded.inc(texts);
    });
    new Counter({
      name: 'larder_ingestion_chunks_total',
      help: 'Chunks of the store files this process ingested',
      registers,
      collect() {
        this.reset();
        this.inc(s.ingestion.ingested.chunks);
      },
    });
  }

  /** Search admission: searches running in their turn, waiting for one, and refused. */
  private searchAdmission(admission: SearchAdmission): void {
    const registers = [this.registry];
    new Gauge({
      name: 'larder_search_queue_depth',
      help: 'Searches waiting for their turn (LARDER_SEARCH_QUEUE at most)',
      registers,
      collect() {
        this.set(admission.queued);
      },
    });
    new Gauge({
      name: 'larder_search_running',
      help: 'Searches running in their turn (LARDER_SEARCH_CONCURRENCY at most)',
      registers,
      collect() {
        this.set(admission.running);
      },
    });
    new Counter({
      name: 'larder_search_refused_total',
      help: 'Searches refused with 503: the queue was full (queue_full) or the wait too long (queue_wait)',
      labelNames: ['reason'] as const,
      registers,
      collect() {
        this.reset();
        this.inc({ reason: 'queue_full' }, admission.refused.queueFull);
        this.inc({ reason: 'queue_wait' }, admission.refused.queueWait);
      },
    });
  }

  /** The domain events the in-process bus keeps for a subscriber asking for all (LARDER_BUS_RETAIN_MB); none with NATS. */
  private busRetention(bus: MessageBus): void {
    const stats = bus.stats?.bind(bus);
    if (!stats) return;
    const registers = [this.registry];
    new Gauge({
      name: 'larder_message_bus_retained_bytes',
      help: 'Bytes of the domain events the in-process bus keeps for a subscriber asking for all (as JSON)',
      registers,
      collect() {
        this.set(stats().bytes);
      },
    });
    new Gauge({
      name: 'larder_message_bus_retained_messages',
      help: 'Domain events the in-process bus keeps for a subscriber asking for all',
      registers,
      collect() {
        this.set(stats().messages);
      },
    });
    new Gauge({
      name: 'larder_message_bus_retained_capacity_bytes',
      help: 'Bytes the in-process bus keeps at most (LARDER_BUS_RETAIN_MB)',
      registers,
      collect() {
        this.set(stats().capacityBytes);
      },
    });
  }

  /** The chunk index's caches (`cache` label), where its adapter reports them: one read of their counters per scrape. */
  private chunkIndexCaches(index: ChunkIndex): void {
    const stats = index.cacheStats?.bind(index);
    if (!stats) return;
    const logger = this.logger;
    // the registry collects every series at once: the first gauge's collect reads, the others share that read
    let pending: Promise<void> | null = null;
    const collect = () =>
      (pending ??= (async () => {
        try {
          for (const g of gauges) g.reset();
          for (const c of await stats()) {
            if (c.bytes !== null) bytes.set({ cache: c.cache }, c.bytes);
            if (c.entries !== null) entries.set({ cache: c.cache }, c.entries);
            if (c.capacityBytes !== null) capacity.set({ cache: c.cache }, c.capacityBytes);
          }
        } catch (err) {
          logger.warn(`reading the chunk index's caches: ${(err as Error)?.message ?? String(err)}`);
        } finally {
          setImmediate(() => (pending = null));
        }
      })());
    const common = { labelNames: ['cache'] as const, registers: [this.registry], collect };
    const bytes = new Gauge({
      name: 'larder_chunk_index_cache_bytes',
      help: 'Bytes a cache of the chunk index holds',
      ...common,
    });
    const entries = new Gauge({
      name: 'larder_chunk_index_cache_entries',
      help: 'Entries a cache of the chunk index holds',
      ...common,
    });
    const capacity = new Gauge({
      name: 'larder_chunk_index_cache_capacity_bytes',
      help: 'Bytes a cache of the chunk index holds at most',
      ...common,
    });
    const gauges = [bytes, entries, capacity];
  }
}

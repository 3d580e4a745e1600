import { getHeapStatistics } from 'v8';
import type { ChunkIndex, ChunkIndexCacheStats } from '@larder/chunk-index';
import type { EmbeddedPostgres } from '@larder/database';
import type { MessageBus } from '@larder/message-bus';
import type { Retrieval } from '@larder/search';

/** What the memory report reads: the embedded database (null with DATABASE_URL), the chunk index, the search's cache and the bus. */
export interface MemorySources {
  embedded: EmbeddedPostgres | null;
  chunkIndex: ChunkIndex;
  retrieval: Retrieval | null;
  bus: MessageBus | null;
}

/** One cache: what it holds now (bytes and/or entries, null where not known) and its bound in bytes (null: none). */
export type CacheSize = ChunkIndexCacheStats;

/**
 * The process's memory by part, bytes: `resident` (RSS) is the whole; `js_heap` and `external` are the
 * main thread's V8 heap and what its objects hold outside it (buffers); `embedded_database` is PGlite's
 * WebAssembly memory (in its own thread; it never shrinks); `native` is the rest of the resident memory:
 * the worker threads' heaps, the model sessions (onnxruntime), SQLite's page caches, malloc's arenas.
 */
export interface MemoryReport {
  parts: Record<'resident' | 'js_heap' | 'external' | 'embedded_database' | 'native', number>;
  /** The embedded database's shared buffers (its page cache, within its WebAssembly memory), bytes; 0 with DATABASE_URL. */
  sharedBuffersBytes: number;
  caches: CacheSize[];
}

/** The process's memory by part (what `/metrics` reports as `larder_memory_bytes`). */
export async function processMemory(
  embedded: EmbeddedPostgres | null,
): Promise<Pick<MemoryReport, 'parts' | 'sharedBuffersBytes'>> {
  const database = (await embedded?.memory()) ?? { wasmBytes: 0, sharedBuffersBytes: 0 };
  const { rss, heapTotal, external } = process.memoryUsage();
  return {
    parts: {
      resident: rss,
      js_heap: heapTotal,
      external,
      embedded_database: database.wasmBytes,
      native: Math.max(0, rss - heapTotal - external - database.wasmBytes),
    },
    sharedBuffersBytes: database.sharedBuffersBytes,
  };
}

/** The process's memory by part and every cache's size and bound (the start log's memory line). */
export async function memoryReport(s: MemorySources): Promise<MemoryReport> {
  const [memory, indexCaches] = await Promise.all([
    processMemory(s.embedded),
    s.chunkIndex.cacheStats?.() ?? Promise.resolve([]),
  ]);
  const query = s.retrieval?.stats();
  const bus = s.bus?.stats?.();
  const caches: CacheSize[] = [
    ...(query
      ? [
          {
            cache: 'query_embeddings',
            bytes: query.queryEmbeddingBytes,
            entries: query.queryEmbeddings,
            capacityBytes: query.queryEmbeddingCapacityBytes,
          },
        ]
      : []),
    ...indexCaches,
    ...(bus
      ? [{ cache: 'message_bus', bytes: bus.bytes, entries: bus.messages, capacityBytes: bus.capacityBytes }]
      : []),
  ];
  return { ...memory, caches };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/**
 * The start log's memory line: the resident memory by part once the server is up (the idle budget), and
 * every cache's bound (each set by a LARDER_* variable, docs/configuration.md).
 */
export function describeMemory(r: MemoryReport): string {
  const p = r.parts;
  const database = p.embedded_database
    ? `, embedded database ${mib(p.embedded_database)} (WebAssembly; shared buffers ${mib(r.sharedBuffersBytes)})`
    : '';
  const bounds = r.caches
    .filter((c) => c.capacityBytes !== null)
    .map((c) => `${c.cache} ${mib(c.capacityBytes!)}`)
    .join(', ');
  const arenas = process.env.MALLOC_ARENA_MAX ? `; MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : '';
  const heapLimit = mib(getHeapStatistics().heap_size_limit);
  return (
    `memory after the start: ${mib(p.resident)} resident: JS heap ${mib(p.js_heap)} (limit ${heapLimit}), external ${mib(p.external)}${database}, ` +
    `native and threads ${mib(p.native)} (model sessions, worker threads, SQLite, malloc)${arenas}; caches bounded at ${bounds}`
  );
}

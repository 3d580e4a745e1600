/** The embedded database's memory: its WebAssembly memory (which never shrinks) and its shared buffers' bound within it. */
export interface EmbeddedPostgresMemory {
  wasmBytes: number;
  sharedBuffersBytes: number;
}

/**
 * PostgreSQL's shared buffers (its page cache) in the embedded database, in MiB: they live in PGlite's
 * WebAssembly memory, which is touched whole at the start and never shrinks (PGlite's own default, 128 MiB,
 * is most of an idle server's database memory). Reads beyond them come from the operating system's file cache.
 * Kept apart from embedded-postgres.ts, which loads PGlite, so that the configuration can read it.
 */
export const DEFAULT_SHARED_BUFFERS_MB = 32;

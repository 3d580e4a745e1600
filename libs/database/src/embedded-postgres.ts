import { mkdirSync } from 'fs';
import { PGlite } from '@electric-sql/pglite';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as {
  pg_trgm: import('@electric-sql/pglite').Extension;
};
import { vector } from '@electric-sql/pglite-pgvector';
import { PgliteWireServer } from './pglite-wire-server';
import { DEFAULT_SHARED_BUFFERS_MB, EmbeddedPostgresMemory } from './embedded-postgres.memory';

export interface EmbeddedPostgres {
  /** Connection string for `pg` / TypeORM. */
  url: string;
  port: number;
  /** What the database holds in memory now (for metrics and the start log). */
  memory(): Promise<EmbeddedPostgresMemory>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL 17 compiled to WebAssembly (PGlite) with pgvector and pg_trgm, served on a loopback port
 * over the Postgres wire protocol so that `pg` and TypeORM connect to it unchanged (see
 * `PgliteWireServer` for how connections share the single backend).
 */
export async function startEmbeddedPostgres(
  options: {
    dataDir?: string;
    port?: number;
    /** Told when a client's connection is ended for a protocol violation or a backend failure. */
    onConnectionError?: (error: Error) => void;
    /** PostgreSQL's shared buffers, MiB (default DEFAULT_SHARED_BUFFERS_MB). */
    sharedBuffersMb?: number;
  } = {},
): Promise<EmbeddedPostgres> {
  const dataDir = options.dataDir ?? 'memory://';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const sharedBuffersMb = options.sharedBuffersMb ?? DEFAULT_SHARED_BUFFERS_MB;
  const db = await PGlite.create({
    dataDir,
    extensions: { vector, pg_trgm },
    // PostgreSQL's minimum is 128 kB; a data directory's postgresql.conf (initdb's 128MB) is overridden by the start parameters
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${Math.max(1, sharedBuffersMb)}MB`],
  });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;');
  const server = new PgliteWireServer(db, options.onConnectionError);
  const port = await server.listen(options.port ?? 0);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async memory() {
      const heap = (db as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod?.HEAPU8;
      return { wasmBytes: heap?.byteLength ?? 0, sharedBuffersBytes: Math.max(1, sharedBuffersMb) * 2 ** 20 };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await db.close();
    },
  };
}

export { DEFAULT_SHARED_BUFFERS_MB, EmbeddedPostgresMemory } from './embedded-postgres.memory';
export {
  EMBEDDED_DATABASE_LOCK_FILE,
  publishEmbeddedDatabase,
  runningEmbeddedDatabase,
  unpublishEmbeddedDatabase,
} from './embedded-database-lock';

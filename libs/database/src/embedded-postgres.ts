import { mkdirSync } from 'fs';
import { PGlite } from '@electric-sql/pglite';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as {
  pg_trgm: import('@electric-sql/pglite').Extension;
};
import { vector } from '@electric-sql/pglite-pgvector';
import { PgliteWireServer } from './pglite-wire-server';

export interface EmbeddedPostgres {
  /** Connection string for `pg` / TypeORM. */
  url: string;
  port: number;
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
  } = {},
): Promise<EmbeddedPostgres> {
  const dataDir = options.dataDir ?? 'memory://';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;');
  const server = new PgliteWireServer(db, options.onConnectionError);
  const port = await server.listen(options.port ?? 0);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await db.close();
    },
  };
}

export {
  EMBEDDED_DATABASE_LOCK_FILE,
  publishEmbeddedDatabase,
  runningEmbeddedDatabase,
  unpublishEmbeddedDatabase,
} from './embedded-database-lock';

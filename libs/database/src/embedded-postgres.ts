import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'fs';
import { join } from 'path';
import { PGlite } from '@electric-sql/pglite';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: import('@electric-sql/pglite').Extension };
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

/** The file in a data directory through which a running server lends its embedded database to the CLI. */
export const EMBEDDED_DATABASE_LOCK_FILE = 'embedded-postgres.json';

/** Records that this process serves `url` for `dataDir` (mode 0600: the address is the only credential). */
export function publishEmbeddedDatabase(dataDir: string, url: string): void {
  writeFileSync(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE), JSON.stringify({ pid: process.pid, url }), { mode: 0o600 });
}

/** If a live process serves an embedded database on this data directory, the URL of that database. */
export function runningEmbeddedDatabase(dataDir: string): string | null {
  const file = join(dataDir, EMBEDDED_DATABASE_LOCK_FILE);
  if (!existsSync(file)) return null;
  try {
    const { pid, url } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; url: string };
    process.kill(pid, 0);
    return url;
  } catch {
    return null;
  }
}

/** Removes the record written by `publishEmbeddedDatabase`. */
export function unpublishEmbeddedDatabase(dataDir: string): void {
  try {
    unlinkSync(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE));
  } catch {
    /* already gone */
  }
}

import Database from 'better-sqlite3';
import { mkdirSync } from 'fs';
import { dirname } from 'path';
import { chunkTypeOf, IndexedChunk, IndexedFile } from '../chunk-index.port';

/** A row as better-sqlite3 answers it. */
export type Row = Record<string, unknown>;

/**
 * The embedded chunk index's SQLite file: `files`, `chunks` (text, vector, IVF list), the FTS5
 * trigram index `chunks_tri` (kept by triggers), `checkpoints`, `ivf_centroids`, the lexical index's
 * `lex_*` tables (lexical/writer.ts, which also drops an older release's FTS5 BM25 index `chunks_fts`);
 * and the port's types read from its rows.
 */

/** SQLite's page cache of one connection to the index file, in bytes (the index and its read worker have one each). */
export const DEFAULT_PAGE_CACHE_BYTES = 64 * 2 ** 20;

/** SQLite's `cache_size` for a page cache of `bytes` (a negative value counts KiB). */
export const cacheSizePragma = (bytes: number) => `cache_size = -${Math.max(64, Math.floor(bytes / 1024))}`;

/** Opens (creating its folder) the file in WAL mode with the connection's pragmas. */
export function openChunkDatabase(path: string, pageCacheBytes = DEFAULT_PAGE_CACHE_BYTES): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(cacheSizePragma(pageCacheBytes));
  // Checkpoints every 64 MiB of WAL rather than SQLite's 4 MiB: a write of the lexical index touches a
  // page per term (its tail block and lex_terms row), so at 4 MiB nearly every commit checkpointed (and
  // synced) the same hot pages again; the WAL file is cut back to 64 MiB after a checkpoint.
  db.pragma('wal_autocheckpoint = 16384');
  db.pragma('journal_size_limit = 67108864');
  return db;
}

/** Creates the tables and indexes that are missing, and brings a file of an older release up to date. */
export function migrateChunkDatabase(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS files (
      store_id TEXT NOT NULL, file_id TEXT NOT NULL, organization_id TEXT NOT NULL, filename TEXT NOT NULL,
      external_id TEXT, metadata TEXT, generation INTEGER NOT NULL, PRIMARY KEY (store_id, file_id));
    CREATE TABLE IF NOT EXISTS chunks (
      id INTEGER PRIMARY KEY, store_id TEXT NOT NULL, file_id TEXT NOT NULL, chunk_index INTEGER NOT NULL,
      text TEXT NOT NULL, offset INTEGER NOT NULL, mime_type TEXT NOT NULL, generated_metadata TEXT, model TEXT, vector BLOB,
      UNIQUE (store_id, file_id, chunk_index));
    CREATE INDEX IF NOT EXISTS chunks_store ON chunks (store_id);
    CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, version INTEGER NOT NULL, position_commit TEXT NOT NULL, position_prepare TEXT NOT NULL);
  `);
  // The trigram index (grep's n-gram pre-filter) arrived after the first release: built once if missing.
  const hadTrigrams = !!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'chunks_tri'`).get();
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS chunks_tri USING fts5(text, content='chunks', content_rowid='id', tokenize='trigram case_sensitive 0', detail='none');
    CREATE TRIGGER IF NOT EXISTS chunks_tri_ai AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_tri(rowid, text) VALUES (new.id, new.text); END;
    CREATE TRIGGER IF NOT EXISTS chunks_tri_ad AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.id, old.text); END;
  `);
  if (!hadTrigrams) db.exec(`INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild');`);
  // IVF (ivf.catalogue.ts, ivf.persisted.ts): centroids per model, each vector's list, and the lists persisted (`ivf_lists`:
  // per list, blobs of ids, store groups and int8 codes; `ivf_delta`: codes and tombstones since; `ivf_stores`)
  const cols = (db.prepare(`PRAGMA table_info(chunks)`).all() as Row[]).map((r) => r.name);
  if (!cols.includes('list')) db.exec(`ALTER TABLE chunks ADD COLUMN list INTEGER`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS ivf_centroids (model TEXT PRIMARY KEY, dims INTEGER NOT NULL, centroids BLOB NOT NULL, trained_count INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS chunks_model ON chunks (model) WHERE vector IS NOT NULL;
    CREATE TABLE IF NOT EXISTS ivf_lists (model TEXT NOT NULL, list INTEGER NOT NULL, size INTEGER NOT NULL, ids BLOB NOT NULL, groups BLOB NOT NULL, codes BLOB NOT NULL, PRIMARY KEY (model, list));
    CREATE TABLE IF NOT EXISTS ivf_delta (model TEXT NOT NULL, list INTEGER NOT NULL, id INTEGER NOT NULL, grp INTEGER, code BLOB, PRIMARY KEY (model, list, id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ivf_stores (store_id TEXT PRIMARY KEY, grp INTEGER NOT NULL);
  `);
}

/** A `chunks` row (any of its columns a hit selects) as the port's chunk. */
export function toChunk(r: Row): IndexedChunk {
  return {
    storeId: r.store_id as string,
    fileId: r.file_id as string,
    chunkIndex: r.chunk_index as number,
    type: chunkTypeOf(r.mime_type as string),
    text: r.text as string,
    offset: r.offset as number,
    mimeType: r.mime_type as string,
    generatedMetadata: r.generated_metadata
      ? (JSON.parse(r.generated_metadata as string) as Record<string, unknown>)
      : null,
    model: (r.model as string) ?? null,
  };
}

/** A `files` row as the port's file. */
export function toFile(r: Row): IndexedFile {
  return {
    storeId: r.store_id as string,
    fileId: r.file_id as string,
    organizationId: r.organization_id as string,
    filename: r.filename as string,
    externalId: (r.external_id as string) ?? null,
    metadata: r.metadata ? JSON.parse(r.metadata as string) : null,
    generation: r.generation as number,
  };
}

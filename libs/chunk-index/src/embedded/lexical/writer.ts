import type Database from 'better-sqlite3';
import { analyzeChunk, DEFAULT_FIELD_WEIGHTS, FieldWeights, headingContextOf } from '../../analysis/analyzer';
import { normLength } from '../../analysis/bm25';
import { compactStore } from './compaction';
import { BLOCK_SIZE, encodeFlat } from './postings';
import { prepareFlush, readTail, Tail } from './writer-tails';
import { indexChunks } from './writer-rebuild';

/**
 * The lexical index's tables, written in the chunk index's own transactions (so postings, statistics
 * and the projection checkpoint commit together):
 *
 * - `lex_stores`: per store (a small integer key, never reused) its live chunks `n`, their total length
 *   (each chunk's as indexed: its words blended with its file's, normLength), how many of them are code
 *   (`code`) and how many belong to files of several chunks (`multi`) (the query's length normalisation
 *   follows both shares), its tombstones `dead` and a compaction generation `cgen`;
 * - `lex_terms`: per (store, term) the live chunks holding it (`df`), its blocks, a generation `gen`
 *   bumped on every change (the read worker's caches key on it);
 * - `lex_blocks`: per (store, term, block) the block's directory entry and its data (postings.ts);
 * - `lex_dead`: tombstones, chunks deleted whose postings are still in lists (skipped when read);
 * - `lex_paths`: per (store, file) the path its chunks were indexed with (the path field), so that a
 *   delete drops the very terms the add counted;
 * - `lex_meta`: the schema version, the next chunk id and the next store key.
 *
 * Chunk ids come from `next_id`, so they only increase (SQLite's own rowids would reuse the largest
 * after a delete): appends extend a list's tail block. A store's lists are compacted (tombstoned
 * postings dropped) when a quarter of its chunks are dead.
 */
/** Raised whenever what the analyzer makes of a text changes (its fields included): an index written by an older one is rebuilt from its chunks. */
export const LEXICAL_SCHEMA_VERSION = 5;

/** Tails remembered by the writer (beyond, forgotten and read again). */
const MAX_TAILS = 500_000;

export class LexicalWriter {
  /**
   * Postings waiting to be appended, per store key and term: flat, four numbers a posting (id, body
   * count, heading count, length; ids increasing), so a batch allocates one array per term, not per posting.
   */
  private pending = new Map<number, Map<string, number[]>>();
  private statDelta = new Map<number, { n: number; length: number; code: number; multi: number; dead: number }>();
  private keys = new Map<string, number>();
  private nextId = 0;
  /** Per store key and term: its block count and tail block as last written (cleared on a rollback, compaction, drop). */
  private readonly tails = new Map<number, Map<string, Tail>>();
  private tailCount = 0;
  /** lex_meta's write generation as this writer last set it */
  private wgen = -1;
  /** The flush's statements, prepared once (after migrate: the tables exist). */
  private stmts: ReturnType<typeof prepareFlush> | null = null;

  /**
   * `blockSize`: chunks per block (BLOCK_SIZE; tests use small blocks to exercise the block bounds);
   * `fieldWeights`: the path and symbol fields' weights (the quality bench measures others; an index is
   * built with one set of weights).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly blockSize = BLOCK_SIZE,
    private readonly fieldWeights: FieldWeights = DEFAULT_FIELD_WEIGHTS,
  ) {}

  /**
   * Creates the tables; on a file of an older release (FTS5, or lists written by an older analyzer)
   * builds the index once from the chunks (the old lists dropped first; store keys kept, each store's
   * compaction generation bumped so no reader's cache outlives them) and drops FTS5.
   */
  migrate(): void {
    const db = this.db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS lex_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS lex_stores (store_key INTEGER PRIMARY KEY, store_id TEXT NOT NULL UNIQUE, n INTEGER NOT NULL, total_length INTEGER NOT NULL, dead INTEGER NOT NULL, cgen INTEGER NOT NULL, code INTEGER NOT NULL DEFAULT 0, multi INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS lex_terms (store_key INTEGER NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL, blocks INTEGER NOT NULL, gen INTEGER NOT NULL, PRIMARY KEY (store_key, term)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS lex_blocks (store_key INTEGER NOT NULL, term TEXT NOT NULL, block INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, count INTEGER NOT NULL,
        max_body INTEGER NOT NULL, max_heading INTEGER NOT NULL, min_length INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (store_key, term, block)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS lex_dead (store_key INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (store_key, id)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS lex_paths (store_key INTEGER NOT NULL, file_id TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (store_key, file_id)) WITHOUT ROWID;
    `);
    const columns = db.prepare(`SELECT name FROM pragma_table_info('lex_stores')`).pluck().all() as string[];
    if (!columns.includes('code')) db.exec(`ALTER TABLE lex_stores ADD COLUMN code INTEGER NOT NULL DEFAULT 0`);
    if (!columns.includes('multi')) db.exec(`ALTER TABLE lex_stores ADD COLUMN multi INTEGER NOT NULL DEFAULT 0`);
    const version =
      (db.prepare(`SELECT value FROM lex_meta WHERE key = 'version'`).pluck().get() as number | undefined) ?? 0;
    if (version < LEXICAL_SCHEMA_VERSION) {
      db.transaction(() => {
        const maxId = (db.prepare(`SELECT max(id) FROM chunks`).pluck().get() as number | null) ?? 0;
        this.setMeta('next_id', Math.max(maxId + 1, this.meta('next_id')));
        if (version > 0) {
          db.exec(`DELETE FROM lex_terms; DELETE FROM lex_blocks; DELETE FROM lex_dead; DELETE FROM lex_paths;
            UPDATE lex_stores SET n = 0, total_length = 0, code = 0, multi = 0, dead = 0, cgen = cgen + 1;`);
          this.setMeta('wgen', this.meta('wgen') + 1);
        }
        this.load();
        indexChunks(db, this);
        db.exec(`DROP TRIGGER IF EXISTS chunks_ai; DROP TRIGGER IF EXISTS chunks_ad; DROP TABLE IF EXISTS chunks_fts;`);
        this.setMeta('version', LEXICAL_SCHEMA_VERSION);
      })();
    }
    this.load();
  }

  private meta(key: string): number {
    return (this.db.prepare(`SELECT value FROM lex_meta WHERE key = ?`).pluck().get(key) as number | undefined) ?? 0;
  }

  private setMeta(key: string, value: number): void {
    this.db
      .prepare(`INSERT INTO lex_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
      .run(key, value);
  }

  /** (Re)reads the id counter (after a commit or a rollback). */
  private load(): void {
    const maxId = (this.db.prepare(`SELECT max(id) FROM chunks`).pluck().get() as number | null) ?? 0;
    this.nextId = Math.max(this.meta('next_id'), maxId + 1);
  }

  /** The id of the next chunk inserted. */
  takeId(): number {
    return this.nextId++;
  }

  private storeKey(storeId: string, create: boolean): number | null {
    let key = this.keys.get(storeId);
    if (key !== undefined) return key;
    key = this.db.prepare(`SELECT store_key FROM lex_stores WHERE store_id = ?`).pluck().get(storeId) as
      number | undefined;
    if (key === undefined) {
      if (!create) return null;
      key =
        Math.max(
          this.meta('store_seq'),
          (this.db.prepare(`SELECT max(store_key) FROM lex_stores`).pluck().get() as number | null) ?? 0,
        ) + 1;
      this.setMeta('store_seq', key);
      this.db
        .prepare(`INSERT INTO lex_stores (store_key, store_id, n, total_length, dead, cgen) VALUES (?, ?, 0, 0, 0, 0)`)
        .run(key, storeId);
    }
    this.keys.set(storeId, key);
    return key;
  }

  private delta(key: number) {
    let d = this.statDelta.get(key);
    if (!d) this.statDelta.set(key, (d = { n: 0, length: 0, code: 0, multi: 0, dead: 0 }));
    return d;
  }

  /** A chunk's analysis: its text, heading context and fields (its file's path, the names a code chunk defines). */
  private analyze(text: string, generatedMetadata: unknown, path: string | null) {
    const code = isCode(generatedMetadata);
    return analyzeChunk(text, headingContextOf(generatedMetadata), { path, code, weights: this.fieldWeights });
  }

  /** Records the path a file's chunks are indexed with (before they are added). */
  setPath(storeId: string, fileId: string, path: string): void {
    const key = this.storeKey(storeId, true)!;
    this.db
      .prepare(
        `INSERT INTO lex_paths (store_key, file_id, path) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET path = excluded.path`,
      )
      .run(key, fileId, path);
  }

  /** The path a file's chunks were indexed with (null: none recorded). */
  pathOf(storeId: string, fileId: string): string | null {
    const key = this.storeKey(storeId, false);
    if (key === null) return null;
    return (
      (this.db.prepare(`SELECT path FROM lex_paths WHERE store_key = ? AND file_id = ?`).pluck().get(key, fileId) as
        string | undefined) ?? null
    );
  }

  /**
   * Indexes a file's chunks just inserted (all of them, their ids from takeId, so larger than every id
   * indexed), the file at `path`: each with its length blended with the file's (normLength), and the
   * store's count of chunks in files of several chunks.
   */
  addFile(
    storeId: string,
    chunks: Array<{ id: number; text: string; generatedMetadata: unknown }>,
    path: string | null,
  ): void {
    if (!chunks.length) return;
    const key = this.storeKey(storeId, true)!;
    const analyzed = chunks.map((c) => this.analyze(c.text, c.generatedMetadata, path));
    const fileLength = analyzed.reduce((s, a) => s + a.length, 0);
    let terms = this.pending.get(key);
    if (!terms) this.pending.set(key, (terms = new Map<string, number[]>()));
    const d = this.delta(key);
    chunks.forEach((c, i) => {
      const a = analyzed[i];
      const length = normLength(a.length, fileLength);
      for (const [term, tf] of a.terms) {
        const ps = terms.get(term);
        if (ps) ps.push(c.id, tf.body, tf.heading, length);
        else terms.set(term, [c.id, tf.body, tf.heading, length]);
      }
      d.n++;
      d.length += length;
      if (isCode(c.generatedMetadata)) d.code++;
    });
    if (chunks.length > 1) d.multi += chunks.length;
  }

  /**
   * Unindexes a file's chunks about to be deleted (analyzed with the path they were indexed with):
   * statistics and document frequencies drop, the postings become tombstones.
   */
  remove(
    storeId: string,
    fileId: string,
    rows: Array<{ id: number; text: string; generated_metadata: string | null }>,
  ): void {
    const key = this.storeKey(storeId, false);
    if (key === null) return;
    const path = this.pathOf(storeId, fileId);
    this.db.prepare(`DELETE FROM lex_paths WHERE store_key = ? AND file_id = ?`).run(key, fileId);
    if (!rows.length) return;
    this.flush();
    const dfDrop = new Map<string, number>();
    let length = 0;
    let code = 0;
    const dead = this.db.prepare(`INSERT OR IGNORE INTO lex_dead (store_key, id) VALUES (?, ?)`);
    const analyzed = rows.map((r) => {
      const metadata: unknown = r.generated_metadata ? JSON.parse(r.generated_metadata) : null;
      if (isCode(metadata)) code++;
      return this.analyze(r.text, metadata, path);
    });
    const fileLength = analyzed.reduce((s, a) => s + a.length, 0);
    rows.forEach((r, i) => {
      for (const term of analyzed[i].terms.keys()) dfDrop.set(term, (dfDrop.get(term) ?? 0) + 1);
      length += normLength(analyzed[i].length, fileLength);
      dead.run(key, r.id);
    });
    const multi = rows.length > 1 ? rows.length : 0;
    const upd = this.db.prepare(`UPDATE lex_terms SET df = df - ?, gen = gen + 1 WHERE store_key = ? AND term = ?`);
    for (const [term, k] of dfDrop) upd.run(k, key, term);
    const s = this.db
      .prepare(
        `UPDATE lex_stores SET n = n - ?, total_length = total_length - ?, code = code - ?, multi = multi - ?, dead = dead + ? WHERE store_key = ? RETURNING n, dead`,
      )
      .get(rows.length, length, code, multi, rows.length, key) as {
      n: number;
      dead: number;
    };
    if (s.dead >= 16 && s.dead * 4 >= s.n + s.dead) this.compact(key);
  }

  /** Drops a store's whole index. */
  dropStore(storeId: string): void {
    this.flush();
    const key = this.storeKey(storeId, false);
    if (key === null) return;
    this.forgetTails();
    for (const t of ['lex_terms', 'lex_blocks', 'lex_dead', 'lex_paths', 'lex_stores'])
      this.db.prepare(`DELETE FROM ${t} WHERE store_key = ?`).run(key);
    this.keys.delete(storeId);
  }

  /** Drops every store's index (the id counter and store keys go on: neither is ever reused). */
  reset(): void {
    this.pending.clear();
    this.statDelta.clear();
    this.keys.clear();
    this.forgetTails();
    this.db.exec(
      `DELETE FROM lex_terms; DELETE FROM lex_blocks; DELETE FROM lex_dead; DELETE FROM lex_paths; DELETE FROM lex_stores;`,
    );
  }

  private forgetTails(): void {
    this.tails.clear();
    this.tailCount = 0;
  }

  /**
   * Writes the pending postings and statistics (in the caller's transaction): per term, its new
   * postings are encoded once and appended to its tail block (one UPDATE of the block while it has
   * room, an INSERT per block started) and its lex_terms row updated once, however many chunks of the
   * batch hold it. The tail blocks written are remembered for the next batch (not read back).
   */
  flush(): void {
    if (this.pending.size) {
      const st = (this.stmts ??= prepareFlush(this.db));
      // another connection wrote since this one last did: what it remembers may be stale
      const wgen = this.meta('wgen');
      if (wgen !== this.wgen || this.tailCount > MAX_TAILS) this.forgetTails();
      this.wgen = wgen + 1;
      this.setMeta('wgen', this.wgen);
      const size = this.blockSize;
      for (const [key, terms] of this.pending) {
        let known = this.tails.get(key);
        if (!known) this.tails.set(key, (known = new Map<string, Tail>()));
        for (const [t, ps] of terms) {
          let tail = known.get(t);
          if (!tail) {
            tail = readTail(st.tail, key, t);
            known.set(t, tail);
            this.tailCount++;
          }
          const count = ps.length >> 2;
          let i = 0;
          if (tail.data && tail.count < size) {
            // the tail block grows: only the new postings are encoded, after its data
            i = Math.min(size - tail.count, count);
            const part = encodeFlat(ps, 0, i, tail, tail.last);
            const data = Buffer.allocUnsafe(tail.data.length + part.length);
            tail.data.copy(data, 0);
            data.set(part, tail.data.length);
            tail.data = data;
            st.growBlock.run(
              tail.last,
              tail.count,
              tail.maxBody,
              tail.maxHeading,
              tail.minLength,
              data,
              key,
              t,
              tail.blocks - 1,
            );
          }
          while (i < count) {
            const j = Math.min(i + size, count);
            tail.first = ps[i << 2];
            tail.count = tail.maxBody = tail.maxHeading = 0;
            tail.minLength = Infinity;
            tail.data = Buffer.from(encodeFlat(ps, i, j, tail, tail.first));
            st.insertBlock.run(
              key,
              t,
              tail.blocks++,
              tail.first,
              tail.last,
              tail.count,
              tail.maxBody,
              tail.maxHeading,
              tail.minLength,
              tail.data,
            );
            i = j;
          }
          if (tail.listed) st.updateTerm.run(count, tail.blocks, key, t);
          else st.upsertTerm.run(key, t, count, tail.blocks);
          tail.listed = true;
        }
      }
      this.pending.clear();
    }
    if (this.statDelta.size) {
      const upd = (this.stmts ??= prepareFlush(this.db)).stats;
      for (const [key, d] of this.statDelta) upd.run(d.n, d.length, d.code, d.multi, d.dead, key);
      this.statDelta.clear();
    }
    this.setMeta('next_id', this.nextId);
  }

  /** After the transaction committed. */
  commit(): void {
    this.keys.clear();
  }

  /** After the transaction rolled back: what was pending is dropped, the counter re-read. */
  discard(): void {
    this.forgetTails();
    this.pending.clear();
    this.statDelta.clear();
    this.keys.clear();
    this.load();
  }

  /** Rewrites a store's lists without their tombstoned postings. */
  private compact(key: number): void {
    this.forgetTails();
    compactStore(this.db, key, this.blockSize);
  }
}

/** Whether a chunk is source code (its generated metadata's `type`, as the code parser sets it). */
export const isCode = (generatedMetadata: unknown) => (generatedMetadata as { type?: unknown } | null)?.type === 'code';

import Database from 'better-sqlite3';
import { evaluateFilter } from '@larder/kernel';
import { normalize } from './ivf';
import { TopK } from './top-k';
import { IvfCatalogue, IvfOptions } from './ivf.catalogue';
import { fileState, IvfPrefetch } from './ivf.prefetch';
import { STOP_WORDS, words } from './lexical/analyzer';
import { Bm25Params, DEFAULT_BM25 } from './lexical/bm25';
import type { LexicalInput } from './lexical/input';
import { DEFAULT_PRELOAD_BYTES, LexicalPreloadInput } from './lexical/preload';
import { lexicalProgram } from './lexical/search';
import { LexicalWriter } from './lexical/writer';
import { SqliteReadWorker } from './sqlite-read-worker';
import { migrateChunkDatabase, openChunkDatabase, Row, toChunk, toFile } from './sqlite.schema';
import { ChunkHit, ChunkIndex, ChunkIndexOp, ChunkQuery, IndexCheckpoint, IndexedChunk, IndexedFile, ScanQuery, ScoredChunk } from '../chunk-index.port';

export interface SqliteChunkIndexOptions extends IvfOptions {
  /** Lexical reads on a read-only connection in a worker thread (file databases; default true). */
  readWorker?: boolean;
  /** How the BM25 query is built (lexical/search.ts); defaults: DEFAULT_LEXICAL_OPTIONS. */
  lexical?: Partial<LexicalOptions>;
  /** Chunks per postings block (default 128; tests use small blocks to exercise the block bounds). */
  lexicalBlockSize?: number;
  /** The IVF lists being read in a worker thread since the process began (ivf.prefetch.ts): `setup()` takes them if the file has not changed since. */
  ivfPrefetch?: IvfPrefetch | null;
  /**
   * Bytes of the largest lists' blocks the read worker reads into its block cache once it starts, in
   * slices between queries (preloadLexical; default DEFAULT_PRELOAD_BYTES, capped at the cache's bound;
   * 0: none). Only where the read worker runs.
   */
  lexicalPreloadBytes?: number;
}

/**
 * The lexical query's options: stop words dropped, the exact form's bonus, RM3 pseudo-relevance
 * feedback (null: none) and the fewest words (not counting stop words) a query needs to get it,
 * BM25's k1 and b and the headings' weight.
 */
export type LexicalOptions = Pick<LexicalInput, 'stopWords' | 'feedback' | 'exactBonus' | 'flatMaxPostings' | 'blockCacheBytes' | 'flatCostRatio' | 'denseMinPostings'> &
  Bm25Params & { feedbackMinWords: number };

/**
 * Chosen on CISI and GCIDE (bench/search-quality.bench.ts; README, Benchmarks): stop words on, a
 * word's exact form worth 0.3 of its stem, k1 1.6, b 0.4, headings ×2; RM3 feedback with 10 chunks,
 * 10 terms and the query weighted 0.9, for queries of at least 14 words that are not stop words.
 * Feedback for every query wins on CISI (hybrid nDCG@10 +0.010) but loses on GCIDE (−0.005): its
 * short definitions drift; from 14 words CISI gains +0.013 and GCIDE +0.001. It costs a second BM25
 * pass, which only those long queries pay.
 */
export const RM3_FEEDBACK = { docs: 10, terms: 10, originalWeight: 0.9 };
export const RM3_MIN_QUERY_WORDS = 14;
/**
 * How long a deferred lexical preload waits for startBackground (a server starts it once it listens: a
 * start at 1M chunks used ~1.5 s more CPU with the preload beside it, on a 2-core machine).
 */
export const BACKGROUND_DEFER_MS = 5_000;

export const DEFAULT_LEXICAL_OPTIONS: LexicalOptions = { stopWords: true, feedback: RM3_FEEDBACK, feedbackMinWords: RM3_MIN_QUERY_WORDS, exactBonus: 0.3, ...DEFAULT_BM25 };

/** The words of a query that are not stop words (what `feedbackMinWords` counts), repeats included. */
export function contentWordCount(text: string): number {
  return words(text).filter((w) => !STOP_WORDS.has(w)).length;
}

/**
 * The exact scan's loop, in a function of its own: inside `searchDense` V8 only ever compiled it
 * on-stack (OSR) and threw that code away at the loop's exit, every search (a deopt for missing
 * type feedback in the code after it), so the scan mostly ran in the interpreter (issue 15).
 */
function scanInto(best: TopK, qv: Float32Array, scan: SmallScan, include: Set<string> | null, exclude: Set<string> | null): void {
  const { units, offsets, lengths, ids, files } = scan;
  const d = qv.length;
  for (let i = 0; i < ids.length; i++) {
    if (lengths[i] !== d) continue;
    if (include || exclude) {
      const f = files[i];
      if ((include && !include.has(f)) || exclude?.has(f)) continue;
    }
    // the stored vectors are kept as unit vectors: the cosine is their dot product with the query's
    const o = offsets[i];
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 3 < d; j += 4) {
      s0 += qv[j] * units[o + j];
      s1 += qv[j + 1] * units[o + j + 1];
      s2 += qv[j + 2] * units[o + j + 2];
      s3 += qv[j + 3] * units[o + j + 3];
    }
    for (; j < d; j++) s0 += qv[j] * units[o + j];
    best.push(ids[i], s0 + s1 + (s2 + s3));
  }
}

/**
 * Embedded chunk index: one SQLite file (better-sqlite3, native, WAL; sqlite.schema.ts) holding files,
 * chunks, vectors, Larder's own BM25 index (lexical/) and an FTS5 trigram index, with the projection checkpoint written
 * in the same transaction as the ops, so it is exactly-once across crashes. Dense search is an exact
 * cosine scan for small stores and an in-memory IVF over int8 codes above `ivfMinVectors` (ivf.catalogue.ts);
 * BM25 reads run in a worker thread (sqlite-read-worker.ts, lexical/search.ts).
 */
export class SqliteChunkIndex implements ChunkIndex {
  readonly kind = 'embedded';
  private readonly db: Database.Database;
  /** The IVF indexes of the models with enough vectors: loaded, trained, kept in step with the writes. */
  private readonly ivf: IvfCatalogue;
  /** BM25 reads run here, in a worker thread beside the event loop where it can. */
  private readonly reader: SqliteReadWorker;
  private readonly lexical: LexicalOptions;
  /** Larder's own inverted index (lexical/): postings and per-store statistics, written with the chunks. */
  private readonly lex: LexicalWriter;
  /** Exact scans' vectors by (model, stores), most recent last (see `smallScan`). */
  private readonly scans = new Map<string, SmallScan>();
  /** Writes of this connection that changed files, chunks or vectors (not only the checkpoint): part of a cached scan's version. */
  private writes = 0;
  private readonly hitsStatements = new Map<string, Database.Statement>();
  private ivfPrefetch: IvfPrefetch | null;

  constructor(
    readonly path: string,
    options: SqliteChunkIndexOptions = {},
  ) {
    const { readWorker, lexical, lexicalBlockSize, ivfPrefetch, lexicalPreloadBytes, ...ivf } = { readWorker: true, ...options };
    this.ivfPrefetch = ivfPrefetch ?? null;
    this.lexical = { ...DEFAULT_LEXICAL_OPTIONS, ...lexical };
    this.db = openChunkDatabase(path);
    this.ivf = new IvfCatalogue(this.db, ivf);
    this.lex = new LexicalWriter(this.db, lexicalBlockSize);
    const module = require.resolve('./lexical/search');
    const preloadModule = require.resolve('./lexical/preload');
    const preload: LexicalPreloadInput = { blockCacheBytes: this.lexical.blockCacheBytes, denseMinPostings: this.lexical.denseMinPostings, preloadBytes: lexicalPreloadBytes ?? DEFAULT_PRELOAD_BYTES };
    this.reader = new SqliteReadWorker(
      path,
      this.db,
      { lexical: { module, name: 'lexicalProgram', fn: lexicalProgram } },
      readWorker && path !== ':memory:',
      preload.preloadBytes! > 0 ? { module: preloadModule, name: 'preloadLexical', input: preload, state: 'lexical' } : null,
    );
  }

  async setup(): Promise<void> {
    migrateChunkDatabase(this.db);
    this.lex.migrate();
    const prefetch = this.ivfPrefetch;
    this.ivfPrefetch = null;
    const t0 = performance.now();
    const pre = prefetch ? await prefetch.done : null;
    this.prefetchWait = performance.now() - t0;
    // the worker's read is the file's only if nothing (another process, this connection's migrations) committed since it began
    if (pre && this.path !== ':memory:' && fileState(this.path) === pre.state) {
      this.ivf.load(pre.built);
      this.prefetched = pre.ms;
    } else {
      this.ivf.load();
      this.prefetched = null;
    }
  }

  /** ms the worker's read took (null: the lists were read here) and ms `setup()` waited for it. */
  private prefetched: number | null = null;
  private prefetchWait = 0;

  /** How the IVF lists were last loaded: from their persisted copy, or rebuilt from the vectors (an older file); `prefetched`: the worker's read of them, in ms (then `ms` is only what this thread spent), and how long setup waited for it. */
  get ivfLoad(): { ms: number; vectors: number; from: 'persisted' | 'vectors' | 'none'; prefetched: number | null; waited: number } {
    return { ...this.ivf.lastLoad, prefetched: this.prefetched, waited: this.prefetchWait };
  }

  async readCheckpoint(projection: string): Promise<IndexCheckpoint | null> {
    const r = this.db.prepare(`SELECT * FROM checkpoints WHERE projection = ?`).get(projection) as Row | undefined;
    return r ? { version: r.version as number, position: { commit: BigInt(r.position_commit as string), prepare: BigInt(r.position_prepare as string) } } : null;
  }

  async write(ops: ChunkIndexOp[], cp: { projection: string } & IndexCheckpoint): Promise<void> {
    // a failed (rolled back) write costs the next scan a re-read, nothing more
    if (ops.length) this.writes++;
    this.ivf.begin();
    const tx = this.db.transaction(() => {
      for (const op of ops) this.applyOp(op);
      this.lex.flush();
      this.db
        .prepare(
          `INSERT INTO checkpoints (projection, version, position_commit, position_prepare) VALUES (?, ?, ?, ?)
           ON CONFLICT (projection) DO UPDATE SET version = excluded.version, position_commit = excluded.position_commit, position_prepare = excluded.position_prepare`,
        )
        .run(cp.projection, cp.version, cp.position.commit.toString(), cp.position.prepare.toString());
    });
    try {
      tx();
    } catch (err) {
      this.ivf.discard();
      this.lex.discard();
      throw err;
    }
    this.ivf.commit();
    this.lex.commit();
  }

  private applyOp(op: ChunkIndexOp): void {
    const db = this.db;
    switch (op.op) {
      case 'putFile': {
        const f = op.file;
        const cur = db.prepare(`SELECT generation FROM files WHERE store_id = ? AND file_id = ?`).get(f.storeId, f.fileId) as Row | undefined;
        if (cur && (cur.generation as number) > f.generation) return;
        if (cur && (cur.generation as number) < f.generation) {
          this.removeChunks(f.storeId, f.fileId);
        }
        db.prepare(
          `INSERT INTO files (store_id, file_id, organization_id, filename, external_id, metadata, generation) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (store_id, file_id) DO UPDATE SET filename = excluded.filename, external_id = excluded.external_id, metadata = excluded.metadata, generation = excluded.generation`,
        ).run(f.storeId, f.fileId, f.organizationId, f.filename, f.externalId, JSON.stringify(f.metadata ?? null), f.generation);
        return;
      }
      case 'setChunks': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        this.removeChunks(op.storeId, op.fileId);
        const ins = db.prepare(`INSERT INTO chunks (id, store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
        for (const c of op.chunks) {
          const id = this.lex.takeId();
          ins.run(id, op.storeId, op.fileId, c.chunkIndex, c.text, c.offset, c.mimeType, c.generatedMetadata ? JSON.stringify(c.generatedMetadata) : null);
          this.lex.add(op.storeId, id, c.text, c.generatedMetadata);
        }
        return;
      }
      case 'setVectors': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        this.ivf.revectoring(op.model, op.vectors.length, `store_id = ? AND file_id = ?`, op.storeId, op.fileId);
        const upd = db.prepare(`UPDATE chunks SET vector = ?, model = ?, list = ? WHERE store_id = ? AND file_id = ? AND chunk_index = ? RETURNING id`);
        op.vectors.forEach((v, i) => {
          const placed = this.ivf.place(op.model, v);
          const row = upd.get(Buffer.from(v.buffer, v.byteOffset, v.byteLength), op.model, placed?.list ?? null, op.storeId, op.fileId, i) as Row | undefined;
          if (row && placed) this.ivf.adding(op.model, row.id as number, op.storeId, placed);
        });
        return;
      }
      case 'setMetadata':
        db.prepare(`UPDATE files SET metadata = ? WHERE store_id = ? AND file_id = ?`).run(JSON.stringify(op.metadata ?? null), op.storeId, op.fileId);
        return;
      case 'deleteFile':
        this.removeChunks(op.storeId, op.fileId);
        db.prepare(`DELETE FROM files WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        return;
      case 'deleteStore':
        this.ivf.removing(`store_id = ?`, op.storeId);
        this.lex.dropStore(op.storeId);
        db.prepare(`DELETE FROM chunks WHERE store_id = ?`).run(op.storeId);
        db.prepare(`DELETE FROM files WHERE store_id = ?`).run(op.storeId);
        return;
    }
  }

  /** Deletes a file's chunks (their vectors leave the IVF lists, their postings become tombstones). */
  private removeChunks(storeId: string, fileId: string): void {
    this.ivf.removing(`store_id = ? AND file_id = ?`, storeId, fileId);
    const rows = this.db.prepare(`SELECT id, text, generated_metadata FROM chunks WHERE store_id = ? AND file_id = ?`).all(storeId, fileId) as Array<{
      id: number;
      text: string;
      generated_metadata: string | null;
    }>;
    this.lex.remove(storeId, rows);
    this.db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(storeId, fileId);
  }

  private atGeneration(storeId: string, fileId: string, generation: number): boolean {
    const r = this.db.prepare(`SELECT generation FROM files WHERE store_id = ? AND file_id = ?`).get(storeId, fileId) as Row | undefined;
    return !!r && r.generation === generation;
  }

  async reset(projection: string, version: number): Promise<void> {
    this.writes++;
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM chunks; DELETE FROM files; INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild');`);
      this.lex.reset();
      this.db.prepare(`DELETE FROM checkpoints WHERE projection = ?`).run(projection);
      this.ivf.drop();
      void version;
    })();
    this.ivf.load();
  }

  async getChunks(storeId: string, fileId: string, indices?: number[] | null): Promise<IndexedChunk[]> {
    const rows = this.db
      .prepare(`SELECT store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata, model FROM chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index`)
      .all(storeId, fileId) as Row[];
    const want = indices ? new Set(indices) : null;
    return rows.filter((r) => !want || want.has(r.chunk_index as number)).map(toChunk);
  }

  private candidateSql(q: Pick<ChunkQuery, 'storeIds' | 'fileIds'>, params: unknown[]): string {
    const conds = [`c.store_id IN (${q.storeIds.map(() => '?').join(',')})`];
    params.push(...q.storeIds);
    if (q.fileIds?.include) {
      conds.push(`c.file_id IN (${q.fileIds.include.map(() => '?').join(',') || "''"})`);
      params.push(...q.fileIds.include);
    }
    if (q.fileIds?.exclude?.length) {
      conds.push(`c.file_id NOT IN (${q.fileIds.exclude.map(() => '?').join(',')})`);
      params.push(...q.fileIds.exclude);
    }
    return conds.join(' AND ');
  }

  async searchLexical(q: ChunkQuery): Promise<ScoredChunk[]> {
    if (!q.storeIds.length) return [];
    const rows = await this.reader.run<Row[]>('lexical', this.lexicalInput(q, HIT_COLUMNS));
    return this.postFilter(rows, q).slice(0, q.topK);
  }

  /** As `searchLexical`, the rows carrying only the chunks' places (the worker reads no texts and sends none): a filtered search reads whole rows, which the filter needs. */
  async searchLexicalHits(q: ChunkQuery): Promise<ChunkHit[]> {
    if (q.filter) return (await this.searchLexical(q)).map(toHit);
    if (!q.storeIds.length) return [];
    const rows = await this.reader.run<Row[]>('lexical', this.lexicalInput(q, KEY_COLUMNS));
    return rows.slice(0, q.topK).map(rowHit);
  }

  private lexicalInput(q: ChunkQuery, columns: string): LexicalInput {
    const { feedbackMinWords, ...lexical } = this.lexical;
    return {
      text: q.text ?? '',
      columns,
      storeIds: [...new Set(q.storeIds)],
      includeFiles: q.fileIds?.include ?? null,
      excludeFiles: q.fileIds?.exclude ?? null,
      limit: q.filter ? Math.max(q.topK * 20, 1000) : q.topK,
      ...lexical,
      feedback: lexical.feedback && (feedbackMinWords <= 0 || contentWordCount(q.text ?? '') >= feedbackMinWords) ? lexical.feedback : null,
    };
  }

  async searchDense(q: ChunkQuery): Promise<ScoredChunk[]> {
    const scored = this.denseScored(q);
    return scored ? this.hits(scored, q) : [];
  }

  /** As `searchDense`, reading only the chunks' places (a filtered search reads whole rows, which the filter needs). */
  async searchDenseHits(q: ChunkQuery): Promise<ChunkHit[]> {
    if (q.filter) return (await this.searchDense(q)).map(toHit);
    const scored = this.denseScored(q);
    return scored ? this.scoredRows(scored, KEY_COLUMNS).slice(0, q.topK).map(rowHit) : [];
  }

  /** The best chunk ids by cosine, best first (null: nothing to search). */
  private denseScored(q: ChunkQuery): Array<{ id: number; score: number }> | null {
    if (!q.vector || !q.storeIds.length) return null;
    const viaIvf = this.ivf.search(q);
    if (viaIvf) return viaIvf;
    const qv = normalize(q.vector);
    const best = new TopK(q.filter ? Math.max(q.topK * 20, 1000) : q.topK);
    const scan = this.smallScan(q.storeIds, q.model ?? null);
    const include = q.fileIds?.include ? new Set(q.fileIds.include) : null;
    const exclude = q.fileIds?.exclude?.length ? new Set(q.fileIds.exclude) : null;
    scanInto(best, qv, scan, include, exclude);
    return best.sorted();
  }

  async hydrate(hits: ChunkHit[]): Promise<ScoredChunk[]> {
    // by row id where the hits carry theirs (one statement), each checked against the hit's place (a row id
    // of a deleted chunk may come back as another chunk's); by place where they do not, or the check fails
    const byRef = new Map<number, Row>();
    const refs = hits.filter((h) => h.ref !== undefined).map((h) => h.ref!);
    for (let i = 0; i < refs.length; i += 500) {
      const ids = refs.slice(i, i + 500);
      for (const r of this.hitsStatement(HIT_COLUMNS, ids.length).all(...ids) as Row[]) byRef.set(r.id as number, r);
    }
    const out: ScoredChunk[] = [];
    for (const h of hits) {
      let r = h.ref !== undefined ? byRef.get(h.ref) : undefined;
      if (!r || r.store_id !== h.storeId || r.file_id !== h.fileId || r.chunk_index !== h.chunkIndex) {
        r = (this.hydrateStatement ??= this.db.prepare(
          `SELECT ${HIT_COLUMNS} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.store_id = ? AND c.file_id = ? AND c.chunk_index = ?`,
        )).get(h.storeId, h.fileId, h.chunkIndex) as Row | undefined;
      }
      if (r) out.push(toScored(r, h.score));
    }
    return out;
  }

  private hydrateStatement: Database.Statement | null = null;

  /**
   * The vectors an exact scan reads (stores below the IVF's threshold), kept in memory between
   * queries while the file has not changed: SQLite's `data_version` (another connection's commit) and
   * the count of this index's writes that changed something (`writes`: a batch with ops, a reset) are
   * the key's version, so a cached scan is never stale, and a batch that moves only the checkpoint (a
   * search's activity event and other events the index does not handle) keeps it. Bounded (`SMALL_SCAN_MAX_VECTORS` per scan, `SMALL_SCAN_ENTRIES` scans).
   */
  private smallScan(storeIds: string[], model: string | null): SmallScan {
    const version = `${this.db.pragma('data_version', { simple: true }) as number}:${this.writes}`;
    const key = `${model ?? ''}\u0000${[...new Set(storeIds)].sort().join('\u0000')}`;
    const hit = this.scans.get(key);
    if (hit && hit.version === version) {
      this.scans.delete(key);
      this.scans.set(key, hit);
      return hit;
    }
    const params: unknown[] = [];
    const where = this.candidateSql({ storeIds }, params);
    if (model) params.push(model);
    const stmt = this.db.prepare(`SELECT c.id, c.file_id, c.vector FROM chunks c WHERE ${where} AND c.vector IS NOT NULL${model ? ' AND c.model = ?' : ''}`);
    const ids: number[] = [];
    const files: string[] = [];
    const blobs: Buffer[] = [];
    let floats = 0;
    for (const r of stmt.iterate(...params) as IterableIterator<{ id: number; file_id: string; vector: Buffer }>) {
      ids.push(r.id);
      files.push(r.file_id);
      blobs.push(r.vector);
      floats += r.vector.byteLength >> 2;
    }
    // one array of unit vectors (a zero vector stays zero: its cosine is 0, as `cosine` gives)
    const units = new Float32Array(floats);
    const offsets = new Int32Array(ids.length);
    const lengths = new Int32Array(ids.length);
    let o = 0;
    for (let i = 0; i < blobs.length; i++) {
      const b = blobs[i];
      const v = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.byteLength & ~3)));
      let n = 0;
      for (let j = 0; j < v.length; j++) n += v[j] * v[j];
      const inv = n ? 1 / Math.sqrt(n) : 0;
      for (let j = 0; j < v.length; j++) units[o + j] = v[j] * inv;
      offsets[i] = o;
      lengths[i] = v.length;
      o += v.length;
    }
    const scan: SmallScan = { version, ids, files, units, offsets, lengths };
    this.scans.delete(key);
    if (scan.ids.length <= SMALL_SCAN_MAX_VECTORS) {
      this.scans.set(key, scan);
      while (this.scans.size > SMALL_SCAN_ENTRIES) this.scans.delete(this.scans.keys().next().value as string);
    }
    return scan;
  }

  /** The rows of scored chunk ids, best first, through the query's metadata filter, at most topK. */
  private hits(scored: Array<{ id: number; score: number }>, q: ChunkQuery): ScoredChunk[] {
    return this.postFilter(this.scoredRows(scored, HIT_COLUMNS), q).slice(0, q.topK);
  }

  /** The rows (these columns) of scored chunk ids, each with its score, best first. */
  private scoredRows(scored: Array<{ id: number; score: number }>, columns: string): Row[] {
    const score = new Map(scored.map((x) => [x.id, x.score]));
    const rows: Row[] = [];
    for (let i = 0; i < scored.length; i += 500) {
      const ids = scored.slice(i, i + 500).map((c) => c.id);
      const batch = this.hitsStatement(columns, ids.length).all(...ids) as Row[];
      rows.push(...batch);
    }
    for (const r of rows) r.score = score.get(r.id as number);
    rows.sort((x, y) => (y.score as number) - (x.score as number));
    return rows;
  }

  /** The statement reading these columns of `n` ids' hits, prepared once per count (a search's candidate count is nearly always the same). */
  private hitsStatement(columns: string, n: number): Database.Statement {
    const key = `${columns}:${n}`;
    let stmt = this.hitsStatements.get(key);
    if (!stmt) {
      stmt = this.db.prepare(`SELECT ${columns} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.id IN (${Array(n).fill('?').join(',')})`);
      if (this.hitsStatements.size >= 32) this.hitsStatements.delete(this.hitsStatements.keys().next().value as string);
      this.hitsStatements.set(key, stmt);
    }
    return stmt;
  }

  private postFilter(rows: Row[], q: ChunkQuery): ScoredChunk[] {
    const out: ScoredChunk[] = [];
    for (const r of rows) {
      const hit = toScored(r, r.score as number);
      if (q.filter && !evaluateFilter(q.filter, { file: hit.metadata, chunk: hit.generatedMetadata })) continue;
      out.push(hit);
    }
    return out;
  }

  async scanChunks(q: ScanQuery): Promise<ScoredChunk[]> {
    const params: unknown[] = [];
    const conds = [this.candidateSql({ storeIds: [q.storeId], fileIds: q.fileIds }, params)];
    if (q.after) {
      // index order is insertion order (rowid): FTS5 yields matches in it, so LIMIT stops early
      conds.push(`c.id > COALESCE((SELECT id FROM chunks WHERE store_id = ? AND file_id = ? AND chunk_index = ?), 9223372036854775807)`);
      params.push(q.storeId, q.after.fileId, q.after.chunkIndex);
    }
    const literals = (q.contains ?? []).filter((l) => [...l].length >= 3);
    let from = `chunks c`;
    if (literals.length) {
      from = `chunks_tri JOIN chunks c ON c.id = chunks_tri.rowid`;
      conds.unshift(`chunks_tri MATCH ?`);
      // detail=none keeps the trigram index small but cannot match phrases: AND the literals' trigrams
      const grams = new Set<string>();
      for (const l of literals) {
        const cs = [...l.toLowerCase()];
        for (let i = 0; i + 3 <= cs.length; i++) grams.add(cs.slice(i, i + 3).join(''));
      }
      params.unshift([...grams].map((g) => `"${g.replace(/"/g, '""')}"`).join(' AND '));
    }
    params.push(q.limit);
    const rows = this.db
      .prepare(
        `SELECT ${HIT_COLUMNS}, 0 AS score
           FROM ${from} JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id
          WHERE ${conds.join(' AND ')} ORDER BY ${literals.length ? 'chunks_tri.rowid' : 'c.id'} LIMIT ?`,
      )
      .all(...params) as Row[];
    return this.postFilter(rows, { storeIds: [q.storeId], topK: q.limit });
  }

  async listFiles(storeIds: string[], limit: number): Promise<IndexedFile[]> {
    if (!storeIds.length) return [];
    const rows = this.db.prepare(`SELECT * FROM files WHERE store_id IN (${storeIds.map(() => '?').join(',')}) ORDER BY store_id, file_id LIMIT ?`).all(...storeIds, limit) as Row[];
    return rows.map(toFile);
  }

  async count(storeId?: string): Promise<{ files: number; chunks: number; vectors: number }> {
    const w = storeId ? ' WHERE store_id = ?' : '';
    const args = storeId ? [storeId] : [];
    const files = (this.db.prepare(`SELECT count(*) AS n FROM files${w}`).get(...args) as Row).n as number;
    const chunks = (this.db.prepare(`SELECT count(*) AS n FROM chunks${w}`).get(...args) as Row).n as number;
    const vectors = (this.db.prepare(`SELECT count(*) AS n FROM chunks${w}${w ? ' AND' : ' WHERE'} vector IS NOT NULL`).get(...args) as Row).n as number;
    return { files, chunks, vectors };
  }

  /**
   * Starts the read worker (lexical queries) now rather than with the first search. With
   * `deferBackground`, its lexical preload waits for `startBackground` (or BACKGROUND_DEFER_MS).
   */
  warmUp(options: { deferBackground?: boolean } = {}): void {
    this.reader.warmUp(options.deferBackground ? BACKGROUND_DEFER_MS : 0);
  }

  /** The read worker's lexical preload begins now (where warmUp deferred it). */
  startBackground(): void {
    this.reader.startIdle();
  }

  async close(): Promise<void> {
    this.ivfPrefetch?.cancel();
    this.ivfPrefetch = null;
    await this.reader.close();
    if (this.db.open) this.db.close();
  }
}

/** The columns a hit is made of (`c`: chunks, `f`: files). */
/** One exact scan's vectors, with the file version they were read at. */
interface SmallScan {
  version: string;
  ids: number[];
  files: string[];
  /** The vectors as unit vectors, one after another: row i at `offsets[i]`, `lengths[i]` floats. */
  units: Float32Array;
  offsets: Int32Array;
  lengths: Int32Array;
}
/** An exact scan is kept in memory up to this many vectors (the IVF takes over at 20k by default). */
const SMALL_SCAN_MAX_VECTORS = 25_000;
/** Exact scans kept in memory at once (a few stores searched alone or together). */
const SMALL_SCAN_ENTRIES = 8;

const HIT_COLUMNS = `c.id, c.store_id, c.file_id, c.chunk_index, c.text, c.offset, c.mime_type, c.generated_metadata, c.model, f.filename, f.external_id, f.metadata`;
/** The columns of a hit that is not read yet (`searchLexicalHits`, `searchDenseHits`): the chunk's place. */
const KEY_COLUMNS = `c.id, c.store_id, c.file_id, c.chunk_index`;

/** A row of HIT_COLUMNS as the port's scored chunk. */
function toScored(r: Row, score: number): ScoredChunk {
  return {
    ...toChunk(r),
    score,
    filename: r.filename as string,
    externalId: (r.external_id as string) ?? null,
    metadata: r.metadata ? JSON.parse(r.metadata as string) : null,
  };
}

const rowHit = (r: Row): ChunkHit => ({ storeId: r.store_id as string, fileId: r.file_id as string, chunkIndex: r.chunk_index as number, score: r.score as number, ref: r.id as number });
const toHit = (c: ScoredChunk): ChunkHit => ({ storeId: c.storeId, fileId: c.fileId, chunkIndex: c.chunkIndex, score: c.score });

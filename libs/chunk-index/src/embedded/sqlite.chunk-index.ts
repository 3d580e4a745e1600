import Database from 'better-sqlite3';
import { IvfCatalogue } from './ivf.catalogue';
import { fileState, IvfPrefetch } from './ivf.prefetch';
import type { LexicalInput } from './lexical/input';
import { DEFAULT_PRELOAD_BYTES, LexicalPreloadInput } from './lexical/preload';
import { lexicalProgram } from './lexical/search';
import { lexicalCacheStats, LexicalCacheStats } from './lexical/cache-stats';
import { DEFAULT_BLOCK_CACHE_BYTES } from './lexical/block-cache';
import { LexicalWriter } from './lexical/writer';
import { SqliteReadWorker } from './sqlite-read-worker';
import { ExactScans, ScannedChunk } from './sqlite.exact-scan';
import {
  BACKGROUND_DEFER_MS,
  contentWordCount,
  DEFAULT_LEXICAL_OPTIONS,
  LexicalOptions,
  SqliteChunkIndexOptions,
} from './sqlite.options';
import { HIT_COLUMNS, KEY_COLUMNS, passingRows, rowHit, toScored } from './sqlite.rows';
import { countRows, listFiles, scanChunks } from './sqlite.scan';
import { DEFAULT_PAGE_CACHE_BYTES, migrateChunkDatabase, openChunkDatabase, Row, toChunk } from './sqlite.schema';
import { SqliteOpWriter } from './sqlite.writes';
import {
  ChunkHit,
  ChunkIndex,
  ChunkIndexCacheStats,
  ChunkIndexOp,
  ChunkQuery,
  IndexCheckpoint,
  IndexedChunk,
  IndexedFile,
  ScanQuery,
  ScoredChunk,
} from '../chunk-index.port';

/**
 * Embedded chunk index: one SQLite file (better-sqlite3, native, WAL; sqlite.schema.ts) holding files,
 * chunks, vectors, Larder's own BM25 index (lexical/) and an FTS5 trigram index, with the projection checkpoint written
 * in the same transaction as the ops, so it is exactly-once across crashes. Dense search is an exact
 * cosine scan for small stores and an in-memory IVF over int8 codes above `ivfMinVectors` (ivf.catalogue.ts);
 * BM25 reads run in a worker thread (sqlite-read-worker.ts, lexical/search.ts). This file holds the index's
 * lifecycle, checkpoints, searches and hydration; the ops' writes are in sqlite.writes.ts, scans and counts in sqlite.scan.ts.
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
  /** The ops' changes to the tables, the IVF lists and the postings (sqlite.writes.ts). */
  private readonly ops: SqliteOpWriter;
  /** Exact scans' vectors by (model, stores), most recent last. */
  private readonly exact: ExactScans;
  /** Writes of this connection that changed files, chunks or vectors (not only the checkpoint): a cached scan is brought up to date. */
  private writes = 0;
  /** Of those, the ones that replaced vectors in place, and resets: a cached scan is read whole again. */
  private rewrites = 0;
  private readonly hitsStatements = new Map<string, Database.Statement>();
  private ivfPrefetch: IvfPrefetch | null;
  /** SQLite's page caches' bound: this connection's and the read worker's where it runs, bytes. */
  private readonly pageCacheBytes: number;

  constructor(
    readonly path: string,
    options: SqliteChunkIndexOptions = {},
  ) {
    const {
      readWorker,
      lexical,
      lexicalBlockSize,
      lexicalFieldWeights,
      ivfPrefetch,
      lexicalPreloadBytes,
      lexicalWarmUp,
      pageCacheBytes,
      exactScanCacheBytes,
      ...ivf
    } = {
      readWorker: true,
      lexicalWarmUp: true,
      pageCacheBytes: DEFAULT_PAGE_CACHE_BYTES,
      ...options,
    };
    this.pageCacheBytes = pageCacheBytes * (readWorker && path !== ':memory:' ? 2 : 1);
    this.ivfPrefetch = ivfPrefetch ?? null;
    this.lexical = { ...DEFAULT_LEXICAL_OPTIONS, ...lexical };
    this.db = openChunkDatabase(path, pageCacheBytes);
    this.ivf = new IvfCatalogue(this.db, ivf);
    this.exact = new ExactScans(this.db, exactScanCacheBytes);
    this.lex = new LexicalWriter(this.db, lexicalBlockSize, lexicalFieldWeights);
    this.ops = new SqliteOpWriter(this.db, this.ivf, this.lex);
    const module = require.resolve('./lexical/search');
    const preloadModule = require.resolve('./lexical/preload');
    const preload: LexicalPreloadInput = {
      blockCacheBytes: this.lexical.blockCacheBytes,
      denseMinPostings: this.lexical.denseMinPostings,
      preloadBytes: lexicalPreloadBytes ?? DEFAULT_PRELOAD_BYTES,
    };
    this.reader = new SqliteReadWorker(
      path,
      this.db,
      {
        lexical: { module, name: 'lexicalProgram', fn: lexicalProgram },
        lexicalCacheStats: {
          module: require.resolve('./lexical/cache-stats'),
          name: 'lexicalCacheStats',
          fn: lexicalCacheStats,
          state: 'lexical',
        },
      },
      readWorker && path !== ':memory:',
      preload.preloadBytes! > 0
        ? { module: preloadModule, name: 'preloadLexical', input: preload, state: 'lexical' }
        : null,
      pageCacheBytes,
      lexicalWarmUp ? { module: require.resolve('./lexical/warm-up'), name: 'warmLexical' } : null,
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
  get ivfLoad(): {
    ms: number;
    vectors: number;
    from: 'persisted' | 'vectors' | 'none';
    prefetched: number | null;
    waited: number;
  } {
    return { ...this.ivf.lastLoad, prefetched: this.prefetched, waited: this.prefetchWait };
  }

  async readCheckpoint(projection: string): Promise<IndexCheckpoint | null> {
    const r = this.db.prepare(`SELECT * FROM checkpoints WHERE projection = ?`).get(projection) as Row | undefined;
    return r
      ? {
          version: r.version as number,
          position: { commit: BigInt(r.position_commit as string), prepare: BigInt(r.position_prepare as string) },
        }
      : null;
  }

  async write(ops: ChunkIndexOp[], cp: { projection: string } & IndexCheckpoint): Promise<void> {
    // a failed (rolled back) write costs the next scan a re-read, nothing more
    if (ops.length) this.writes++;
    this.ivf.begin();
    const tx = this.db.transaction(() => {
      for (const op of ops) this.ops.apply(op);
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
      this.ops.takeReplaced();
      this.ivf.discard();
      this.lex.discard();
      throw err;
    }
    if (this.ops.takeReplaced()) this.rewrites++;
    this.ivf.commit();
    this.lex.commit();
  }

  async reset(projection: string, version: number): Promise<void> {
    this.writes++;
    this.rewrites++;
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
      .prepare(
        `SELECT store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata, model FROM chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index`,
      )
      .all(storeId, fileId) as Row[];
    const want = indices ? new Set(indices) : null;
    return rows.filter((r) => !want || want.has(r.chunk_index as number)).map(toChunk);
  }

  /** The worker reads the chunks' places only, or the whole rows where a metadata filter needs them (and sends no texts back). */
  async searchLexical(q: ChunkQuery): Promise<ChunkHit[]> {
    if (!q.storeIds.length) return [];
    const rows = await this.reader.run<Row[]>('lexical', this.lexicalInput(q, q.filter ? HIT_COLUMNS : KEY_COLUMNS));
    return passingRows(rows, q).slice(0, q.topK).map(rowHit);
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
      feedback:
        lexical.feedback && (feedbackMinWords <= 0 || contentWordCount(q.text ?? '') >= feedbackMinWords)
          ? lexical.feedback
          : null,
    };
  }

  /**
   * Reads the chunks' places only (none where the exact scan has them), or the whole rows where a
   * metadata filter needs them.
   */
  async searchDense(q: ChunkQuery): Promise<ChunkHit[]> {
    if (!q.vector || !q.storeIds.length) return [];
    const scored = this.ivf.search(q) ?? this.exact.search(q, this.writes, this.rewrites);
    if (!q.filter && scored.every((c): c is ScannedChunk => 'storeId' in c))
      return scored
        .slice(0, q.topK)
        .map((c) => ({ storeId: c.storeId, fileId: c.fileId, chunkIndex: c.chunkIndex, score: c.score, ref: c.id }));
    return passingRows(this.scoredRows(scored, q.filter ? HIT_COLUMNS : KEY_COLUMNS), q)
      .slice(0, q.topK)
      .map(rowHit);
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
      stmt = this.db.prepare(
        `SELECT ${columns} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.id IN (${Array(n).fill('?').join(',')})`,
      );
      if (this.hitsStatements.size >= 32) this.hitsStatements.delete(this.hitsStatements.keys().next().value as string);
      this.hitsStatements.set(key, stmt);
    }
    return stmt;
  }

  async scanChunks(q: ScanQuery): Promise<ScoredChunk[]> {
    return scanChunks(this.db, q);
  }

  async listFiles(storeIds: string[], limit: number): Promise<IndexedFile[]> {
    return listFiles(this.db, storeIds, limit);
  }

  async count(storeId?: string): Promise<{ files: number; chunks: number; vectors: number }> {
    return countRows(this.db, storeId);
  }

  /** The lexical search's caches where it runs (the read worker): blocks (bounded by blockCacheBytes), the dense forms of lists within them, directories; the exact scans'; SQLite's pages. */
  async cacheStats(): Promise<ChunkIndexCacheStats[]> {
    const s = await this.reader.run<LexicalCacheStats>('lexicalCacheStats', null);
    return [
      {
        cache: 'lexical_blocks',
        bytes: s.blockBytes,
        entries: null,
        capacityBytes: this.lexical.blockCacheBytes ?? DEFAULT_BLOCK_CACHE_BYTES,
      },
      { cache: 'lexical_dense_lists', bytes: s.denseBytes, entries: s.denseLists, capacityBytes: null },
      { cache: 'lexical_directories', bytes: null, entries: s.directories, capacityBytes: null },
      // the vectors of the stores too small for an IVF, kept for their exact scans (on this thread)
      { cache: 'exact_scans', ...this.exact.stats(), capacityBytes: this.exact.capacityBytes },
      // SQLite's page caches: this connection's and the read worker's (what they hold is not reported, only their bound)
      { cache: 'sqlite_pages', bytes: null, entries: null, capacityBytes: this.pageCacheBytes },
    ];
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

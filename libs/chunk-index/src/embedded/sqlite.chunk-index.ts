import Database from 'better-sqlite3';
import { mkdirSync } from 'fs';
import { dirname } from 'path';
import { evaluateFilter } from '@larder/kernel';
import { IvfIndex, kmeans, normalize, TopK } from './ivf';
import { LexicalInput, lexicalProgram } from './lexical.program';
import { SqliteReadWorker } from './sqlite-read-worker';
import { ChunkIndex, ChunkIndexOp, ChunkQuery, IndexCheckpoint, IndexedChunk, IndexedFile, ScanQuery, ScoredChunk } from '../chunk-index.port';

type Row = Record<string, unknown>;

export interface SqliteChunkIndexOptions {
  /** A model's vectors get an IVF index once it has this many (below, dense search is an exact scan). */
  ivfMinVectors?: number;
  /** Lists of the IVF index (k-means centroids). */
  ivfLists?: number;
  /** Lists scanned per query. */
  ivfProbes?: number;
  /** The centroids are retrained (and every vector reassigned) when the model's vectors grow this many times. */
  ivfRetrainFactor?: number;
  /** Lexical reads on a read-only connection in a worker thread (file databases; default true). */
  readWorker?: boolean;
}

interface Ann {
  model: string;
  ivf: IvfIndex;
  trainedCount: number;
  /** vectors per store group, to choose between the IVF and an exact scan */
  perGroup: Map<number, number>;
}

/**
 * Embedded chunk index: one SQLite file (better-sqlite3, native, WAL) holding files, chunks, vectors,
 * an FTS5 BM25 index and an FTS5 trigram index, with the projection checkpoint written in the same
 * transaction as the ops, so it is exactly-once across crashes. Dense search is an exact cosine scan
 * for small stores and an in-memory IVF over int8 codes (ivf.ts, int8-kernel.ts) above
 * `ivfMinVectors`; BM25 reads run in a worker thread (sqlite-read-worker.ts, lexical.program.ts).
 */
export class SqliteChunkIndex implements ChunkIndex {
  readonly kind = 'embedded';
  private db: Database.Database;
  private readonly opts: Required<SqliteChunkIndexOptions>;
  private readonly anns = new Map<string, Ann>();
  private readonly groups = new Map<string, number>();
  /** SQLite's data_version when the in-memory IVF lists were loaded (another connection's commit changes it). */
  private loadedVersion: number | null = null;

  constructor(
    readonly path: string,
    options: SqliteChunkIndexOptions = {},
  ) {
    this.opts = { ivfMinVectors: 20_000, ivfLists: 256, ivfProbes: 8, ivfRetrainFactor: 10, readWorker: true, ...options };
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -65536');
    this.reader = new SqliteReadWorker(path, this.db, { lexical: lexicalProgram }, this.opts.readWorker && path !== ':memory:');
  }

  /** BM25 reads run here, in a worker thread beside the event loop where it can. */
  private readonly reader: SqliteReadWorker;

  async setup(): Promise<void> {
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS files (
        store_id TEXT NOT NULL, file_id TEXT NOT NULL, organization_id TEXT NOT NULL, filename TEXT NOT NULL,
        external_id TEXT, metadata TEXT, generation INTEGER NOT NULL, PRIMARY KEY (store_id, file_id));
      CREATE TABLE IF NOT EXISTS chunks (
        id INTEGER PRIMARY KEY, store_id TEXT NOT NULL, file_id TEXT NOT NULL, chunk_index INTEGER NOT NULL,
        text TEXT NOT NULL, offset INTEGER NOT NULL, mime_type TEXT NOT NULL, generated_metadata TEXT, model TEXT, vector BLOB,
        UNIQUE (store_id, file_id, chunk_index));
      CREATE INDEX IF NOT EXISTS chunks_store ON chunks (store_id);
      CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
      CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text); END;
      CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
      CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, version INTEGER NOT NULL, position_commit TEXT NOT NULL, position_prepare TEXT NOT NULL);
    `);
    // The trigram index (grep's n-gram pre-filter) arrived after the first release: built once if missing.
    const hadTrigrams = !!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'chunks_tri'`).get();
    this.db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS chunks_tri USING fts5(text, content='chunks', content_rowid='id', tokenize='trigram case_sensitive 0', detail='none');
      CREATE TRIGGER IF NOT EXISTS chunks_tri_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_tri(rowid, text) VALUES (new.id, new.text); END;
      CREATE TRIGGER IF NOT EXISTS chunks_tri_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.id, old.text); END;
    `);
    if (!hadTrigrams) this.db.exec(`INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild');`);
    // IVF: centroids per model, and each vector's list
    const cols = (this.db.prepare(`PRAGMA table_info(chunks)`).all() as Row[]).map((r) => r.name);
    if (!cols.includes('list')) this.db.exec(`ALTER TABLE chunks ADD COLUMN list INTEGER`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ivf_centroids (model TEXT PRIMARY KEY, dims INTEGER NOT NULL, centroids BLOB NOT NULL, trained_count INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS chunks_model ON chunks (model) WHERE vector IS NOT NULL;
    `);
    this.loadAnn();
  }

  async readCheckpoint(projection: string): Promise<IndexCheckpoint | null> {
    const r = this.db.prepare(`SELECT * FROM checkpoints WHERE projection = ?`).get(projection) as Row | undefined;
    return r ? { version: r.version as number, position: { commit: BigInt(r.position_commit as string), prepare: BigInt(r.position_prepare as string) } } : null;
  }

  async write(ops: ChunkIndexOp[], cp: { projection: string } & IndexCheckpoint): Promise<void> {
    this.refreshAnn();
    this.pendingAdds = [];
    this.pendingRemovals = [];
    const tx = this.db.transaction(() => {
      for (const op of ops) this.applyOp(op);
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
      this.pendingAdds = [];
      this.pendingRemovals = [];
      throw err;
    }
    // the transaction committed: mirror it in memory, then train or retrain where due
    for (const id of this.pendingRemovals) for (const a of this.anns.values()) this.removeFromAnn(a, id);
    for (const x of this.pendingAdds) {
      const a = this.anns.get(x.model);
      if (a) this.addToAnn(a, x.id, x.storeId, x.list, x.unit);
    }
    this.pendingAdds = [];
    this.pendingRemovals = [];
    this.trainDue();
  }

  private pendingAdds: Array<{ model: string; id: number; storeId: string; list: number; unit: Float32Array }> = [];
  private pendingRemovals: number[] = [];

  private group(storeId: string): number {
    let g = this.groups.get(storeId);
    if (g === undefined) this.groups.set(storeId, (g = this.groups.size));
    return g;
  }

  /** `vector` need not be normalised (the IVF quantises its direction). */
  private addToAnn(a: Ann, id: number, storeId: string, list: number, vector: Float32Array): void {
    this.removeFromAnn(a, id);
    const g = this.group(storeId);
    a.ivf.add(id, g, list, vector);
    a.perGroup.set(g, (a.perGroup.get(g) ?? 0) + 1);
  }

  private removeFromAnn(a: Ann, id: number): void {
    const g = a.ivf.remove(id);
    if (g >= 0) a.perGroup.set(g, (a.perGroup.get(g) ?? 1) - 1);
  }

  /** Rows about to be deleted leave the in-memory lists once the transaction commits. */
  private removing(where: string, ...args: unknown[]): void {
    if (!this.anns.size) return;
    for (const r of this.db.prepare(`SELECT id FROM chunks WHERE ${where} AND list IS NOT NULL`).all(...args) as Row[]) this.pendingRemovals.push(r.id as number);
  }

  /** (Re)loads the IVF lists from the file: at start, and after another process wrote to it. */
  private loadAnn(): void {
    this.anns.clear();
    this.groups.clear();
    for (const c of this.db.prepare(`SELECT * FROM ivf_centroids`).all() as Row[]) {
      const buf = c.centroids as Buffer;
      const centroids = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      const a: Ann = { model: c.model as string, ivf: new IvfIndex(c.dims as number, centroids), trainedCount: c.trained_count as number, perGroup: new Map() };
      this.anns.set(a.model, a);
      const unassigned: Array<[number, number]> = [];
      // raw rows and no per-row copies: a start loads every vector of the model
      const rows = this.db.prepare(`SELECT id, store_id, list, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).raw();
      for (const [id, storeId, stored, blob] of rows.iterate(a.model) as IterableIterator<[number, string, number | null, Buffer]>) {
        const v = blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2) : blobVector(blob);
        if (v.length !== a.ivf.dims) continue;
        let list = stored;
        if (list === null) unassigned.push([(list = a.ivf.listOf(v)), id]); // a list choice needs no normalising
        this.addToAnn(a, id, storeId, list, v);
      }
      if (unassigned.length) {
        const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
        this.db.transaction(() => unassigned.forEach(([l, id]) => upd.run(l, id)))();
      }
    }
    this.counted.clear();
    for (const r of this.db.prepare(`SELECT model, count(*) AS n FROM chunks WHERE vector IS NOT NULL GROUP BY model`).all() as Row[]) this.counted.set(r.model as string, r.n as number);
    this.loadedVersion = this.db.pragma('data_version', { simple: true }) as number;
  }

  private refreshAnn(): void {
    if (this.db.pragma('data_version', { simple: true }) !== this.loadedVersion) this.loadAnn();
  }

  /** Trains a model's IVF once it has enough vectors, and retrains it when it has grown `ivfRetrainFactor` times. */
  /** Vectors written per model since they were last counted (cheap trigger for the exact count). */
  private readonly written = new Map<string, number>();
  private readonly counted = new Map<string, number>();

  private trainDue(): void {
    for (const [model, added] of this.written) {
      const a = this.anns.get(model);
      // models with an IVF know their size; others are counted only when the writes could reach the threshold
      const estimate = a ? a.ivf.size : (this.counted.get(model) ?? 0) + added;
      const due = a ? estimate >= a.trainedCount * this.opts.ivfRetrainFactor : estimate >= this.opts.ivfMinVectors;
      if (!due) continue;
      const n = (this.db.prepare(`SELECT count(*) AS n FROM chunks WHERE model = ? AND vector IS NOT NULL`).get(model) as Row).n as number;
      this.counted.set(model, n);
      this.written.set(model, 0);
      if (n < this.opts.ivfMinVectors || (a && n < a.trainedCount * this.opts.ivfRetrainFactor)) continue;
      this.train(model, n);
    }
  }

  private train(model: string, n: number): void {
    const step = Math.max(1, Math.floor(n / 20_000));
    const sample: Float32Array[] = [];
    let dims = 0;
    let i = 0;
    for (const r of this.db.prepare(`SELECT vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).iterate(model) as IterableIterator<Row>) {
      if (i++ % step) continue;
      const v = blobVector(r.vector as Buffer);
      dims ||= v.length;
      if (v.length === dims) sample.push(normalize(v));
    }
    if (!sample.length) return;
    const centroids = kmeans(sample, Math.min(this.opts.ivfLists, Math.max(1, Math.floor(sample.length / 8))));
    const ivf = new IvfIndex(dims, centroids);
    const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
    const a: Ann = { model, ivf, trainedCount: n, perGroup: new Map() };
    this.db.transaction(() => {
      for (const r of this.db.prepare(`SELECT id, store_id, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).all(model) as Row[]) {
        const v = blobVector(r.vector as Buffer);
        if (v.length !== dims) continue;
        const unit = normalize(v);
        const list = ivf.listOf(unit);
        upd.run(list, r.id);
        this.addToAnn(a, r.id as number, r.store_id as string, list, unit);
      }
      this.db
        .prepare(`INSERT INTO ivf_centroids (model, dims, centroids, trained_count) VALUES (?, ?, ?, ?) ON CONFLICT (model) DO UPDATE SET dims = excluded.dims, centroids = excluded.centroids, trained_count = excluded.trained_count`)
        .run(model, dims, Buffer.from(centroids.buffer, centroids.byteOffset, centroids.byteLength), n);
    })();
    this.anns.set(model, a);
  }

  private applyOp(op: ChunkIndexOp): void {
    const db = this.db;
    switch (op.op) {
      case 'putFile': {
        const f = op.file;
        const cur = db.prepare(`SELECT generation FROM files WHERE store_id = ? AND file_id = ?`).get(f.storeId, f.fileId) as Row | undefined;
        if (cur && (cur.generation as number) > f.generation) return;
        if (cur && (cur.generation as number) < f.generation) {
          this.removing(`store_id = ? AND file_id = ?`, f.storeId, f.fileId);
          db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(f.storeId, f.fileId);
        }
        db.prepare(
          `INSERT INTO files (store_id, file_id, organization_id, filename, external_id, metadata, generation) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (store_id, file_id) DO UPDATE SET filename = excluded.filename, external_id = excluded.external_id, metadata = excluded.metadata, generation = excluded.generation`,
        ).run(f.storeId, f.fileId, f.organizationId, f.filename, f.externalId, JSON.stringify(f.metadata ?? null), f.generation);
        return;
      }
      case 'setChunks': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        this.removing(`store_id = ? AND file_id = ?`, op.storeId, op.fileId);
        db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        const ins = db.prepare(
          `INSERT INTO chunks (store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const c of op.chunks) ins.run(op.storeId, op.fileId, c.chunkIndex, c.text, c.offset, c.mimeType, c.generatedMetadata ? JSON.stringify(c.generatedMetadata) : null);
        return;
      }
      case 'setVectors': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        const a = this.anns.get(op.model);
        if (a) this.removing(`store_id = ? AND file_id = ?`, op.storeId, op.fileId);
        this.written.set(op.model, (this.written.get(op.model) ?? 0) + op.vectors.length);
        const upd = db.prepare(`UPDATE chunks SET vector = ?, model = ?, list = ? WHERE store_id = ? AND file_id = ? AND chunk_index = ? RETURNING id`);
        op.vectors.forEach((v, i) => {
          const unit = a && v.length === a.ivf.dims ? normalize(v) : null;
          const list = unit ? a!.ivf.listOf(unit) : null;
          const row = upd.get(Buffer.from(v.buffer, v.byteOffset, v.byteLength), op.model, list, op.storeId, op.fileId, i) as Row | undefined;
          if (row && unit && list !== null) this.pendingAdds.push({ model: op.model, id: row.id as number, storeId: op.storeId, list, unit });
        });
        return;
      }
      case 'setMetadata':
        db.prepare(`UPDATE files SET metadata = ? WHERE store_id = ? AND file_id = ?`).run(JSON.stringify(op.metadata ?? null), op.storeId, op.fileId);
        return;
      case 'deleteFile':
        this.removing(`store_id = ? AND file_id = ?`, op.storeId, op.fileId);
        db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        db.prepare(`DELETE FROM files WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        return;
      case 'deleteStore':
        this.removing(`store_id = ?`, op.storeId);
        db.prepare(`DELETE FROM chunks WHERE store_id = ?`).run(op.storeId);
        db.prepare(`DELETE FROM files WHERE store_id = ?`).run(op.storeId);
        return;
    }
  }

  private atGeneration(storeId: string, fileId: string, generation: number): boolean {
    const r = this.db.prepare(`SELECT generation FROM files WHERE store_id = ? AND file_id = ?`).get(storeId, fileId) as Row | undefined;
    return !!r && r.generation === generation;
  }

  async reset(projection: string, version: number): Promise<void> {
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM chunks; DELETE FROM files; INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild'); INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild');`);
      this.db.prepare(`DELETE FROM checkpoints WHERE projection = ?`).run(projection);
      this.db.exec(`DELETE FROM ivf_centroids`);
      void version;
    })();
    this.loadAnn();
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
    const params: unknown[] = [];
    const input: LexicalInput = {
      text: q.text ?? '',
      columns: HIT_COLUMNS,
      where: this.candidateSql(q, params),
      params,
      limit: q.filter ? Math.max(q.topK * 20, 1000) : q.topK,
      budget: LEXICAL_POSTINGS_BUDGET,
    };
    const rows = await this.reader.run<Row[]>('lexical', input);
    return this.postFilter(rows, q).slice(0, q.topK);
  }

  async searchDense(q: ChunkQuery): Promise<ScoredChunk[]> {
    if (!q.vector || !q.storeIds.length) return [];
    const ann = this.annFor(q);
    if (ann) return this.searchIvf(ann, q);
    const params: unknown[] = [];
    const where = this.candidateSql(q, params);
    const qv = normalize(q.vector);
    if (q.model) params.push(q.model);
    const stmt = this.db.prepare(`SELECT c.id, c.vector FROM chunks c WHERE ${where} AND c.vector IS NOT NULL${q.model ? ' AND c.model = ?' : ''}`);
    const best = new TopK(q.filter ? Math.max(q.topK * 20, 1000) : q.topK);
    for (const r of stmt.iterate(...params) as IterableIterator<{ id: number; vector: Buffer }>) {
      const v = new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4);
      if (v.length === qv.length) best.push(cosine(qv, v), r.id);
    }
    return this.hits(best.sorted(), q);
  }

  /** The rows of scored chunk ids, best first, through the query's metadata filter, at most topK. */
  private hits(scored: Array<{ id: number; score: number }>, q: ChunkQuery): ScoredChunk[] {
    const score = new Map(scored.map((x) => [x.id, x.score]));
    const rows: Row[] = [];
    for (let i = 0; i < scored.length; i += 500) {
      const ids = scored.slice(i, i + 500).map((c) => c.id);
      const batch = this.db
        .prepare(`SELECT ${HIT_COLUMNS} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.id IN (${ids.map(() => '?').join(',')})`)
        .all(...ids) as Row[];
      rows.push(...batch);
    }
    for (const r of rows) r.score = score.get(r.id as number);
    rows.sort((x, y) => (y.score as number) - (x.score as number));
    return this.postFilter(rows, q).slice(0, q.topK);
  }

  /** The IVF of the query's model when the candidate stores hold enough vectors for it to pay off. */
  private annFor(q: ChunkQuery): Ann | null {
    if (!q.model || q.fileIds?.include) return null;
    this.refreshAnn();
    const a = this.anns.get(q.model);
    if (!a || a.ivf.dims !== q.vector!.length) return null;
    let n = 0;
    for (const s of q.storeIds) n += a.perGroup.get(this.groups.get(s) ?? -1) ?? 0;
    return n >= this.opts.ivfMinVectors ? a : null;
  }

  /** IVF candidates (int8 scores), re-scored exactly with the stored float vectors, then filtered. */
  private searchIvf(a: Ann, q: ChunkQuery): ScoredChunk[] {
    const unit = normalize(q.vector!);
    const mask = new Uint8Array(this.groups.size);
    for (const s of q.storeIds) {
      const g = this.groups.get(s);
      if (g !== undefined) mask[g] = 1;
    }
    const filtered = !!(q.filter || q.fileIds?.exclude?.length);
    const k = filtered ? Math.max(q.topK * 20, 1000) : Math.max(q.topK * 4, 40);
    let candidates = a.ivf.search(unit, this.opts.ivfProbes, mask, k);
    if (!candidates.length) return [];
    // An int8 score is within a few thousandths of the exact one (rounding error ≈ 0.0023 standard
    // deviation for unit vectors), so a candidate more than RESCORE_MARGIN below the topK-th can not
    // enter the exact top: only the rest are re-scored. Filters keep every candidate (any may fail).
    if (!filtered && candidates.length > q.topK) {
      const floor = candidates[q.topK - 1].score - RESCORE_MARGIN;
      candidates = candidates.filter((c, i) => i < q.topK || c.score >= floor);
    }
    // exact scores from the stored vectors; the full rows only of those that can be answered
    const exclude = new Set(q.fileIds?.exclude ?? []);
    const exact: Array<{ id: number; score: number }> = [];
    for (let i = 0; i < candidates.length; i += 500) {
      const ids = candidates.slice(i, i + 500).map((c) => c.id);
      const vs = this.db.prepare(`SELECT id, file_id, vector FROM chunks WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids) as Row[];
      for (const r of vs) if (!exclude.has(r.file_id as string)) exact.push({ id: r.id as number, score: cosine(unit, blobVector(r.vector as Buffer)) });
    }
    exact.sort((x, y) => y.score - x.score);
    return this.hits(filtered ? exact : exact.slice(0, q.topK), q);
  }

  private postFilter(rows: Row[], q: ChunkQuery): ScoredChunk[] {
    const out: ScoredChunk[] = [];
    for (const r of rows) {
      const hit: ScoredChunk = {
        ...toChunk(r),
        score: r.score as number,
        filename: r.filename as string,
        externalId: (r.external_id as string) ?? null,
        metadata: r.metadata ? JSON.parse(r.metadata as string) : null,
      };
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
    const rows = this.db
      .prepare(`SELECT * FROM files WHERE store_id IN (${storeIds.map(() => '?').join(',')}) ORDER BY store_id, file_id LIMIT ?`)
      .all(...storeIds, limit) as Row[];
    return rows.map((r) => ({
      storeId: r.store_id as string,
      fileId: r.file_id as string,
      organizationId: r.organization_id as string,
      filename: r.filename as string,
      externalId: (r.external_id as string) ?? null,
      metadata: r.metadata ? JSON.parse(r.metadata as string) : null,
      generation: r.generation as number,
    }));
  }

  async count(storeId?: string): Promise<{ files: number; chunks: number; vectors: number }> {
    const w = storeId ? ' WHERE store_id = ?' : '';
    const args = storeId ? [storeId] : [];
    const files = (this.db.prepare(`SELECT count(*) AS n FROM files${w}`).get(...args) as Row).n as number;
    const chunks = (this.db.prepare(`SELECT count(*) AS n FROM chunks${w}`).get(...args) as Row).n as number;
    const vectors = (this.db.prepare(`SELECT count(*) AS n FROM chunks${w}${w ? ' AND' : ' WHERE'} vector IS NOT NULL`).get(...args) as Row).n as number;
    return { files, chunks, vectors };
  }

  async close(): Promise<void> {
    await this.reader.close();
    if (this.db.open) this.db.close();
  }
}

function toChunk(r: Row): IndexedChunk {
  return {
    storeId: r.store_id as string,
    fileId: r.file_id as string,
    chunkIndex: r.chunk_index as number,
    type: 'text',
    text: r.text as string,
    offset: r.offset as number,
    mimeType: r.mime_type as string,
    generatedMetadata: r.generated_metadata ? JSON.parse(r.generated_metadata as string) : null,
    model: (r.model as string) ?? null,
  };
}

/** The columns a hit is made of (`c`: chunks, `f`: files). */
const HIT_COLUMNS = `c.id, c.store_id, c.file_id, c.chunk_index, c.text, c.offset, c.mime_type, c.generated_metadata, c.model, f.filename, f.external_id, f.metadata`;

/** Int8 scores below the topK-th by more than this are not re-scored (see searchIvf). */
const RESCORE_MARGIN = 0.02;

/** Postings the lexical query may score (see lexicalProgram). */
const LEXICAL_POSTINGS_BUDGET = 30_000;

function blobVector(b: Buffer): Float32Array {
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

function cosine(qn: Float32Array, v: Float32Array): number {
  let dot = 0;
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    dot += qn[i] * v[i];
    n += v[i] * v[i];
  }
  return n ? dot / Math.sqrt(n) : 0;
}

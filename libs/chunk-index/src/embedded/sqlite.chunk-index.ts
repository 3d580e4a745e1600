import Database from 'better-sqlite3';
import { mkdirSync } from 'fs';
import { dirname } from 'path';
import { evaluateFilter } from '@larder/kernel';
import { ChunkIndex, ChunkIndexOp, ChunkQuery, IndexCheckpoint, IndexedChunk, IndexedFile, ScanQuery, ScoredChunk } from '../chunk-index.port';

type Row = Record<string, unknown>;

/**
 * Embedded chunk index: one SQLite file (better-sqlite3, native, WAL) holding files, chunks, vectors
 * and an FTS5 BM25 index, with the projection checkpoint written in the same transaction as the ops,
 * so it is exactly-once across crashes. Dense search is an exact cosine scan over the candidate
 * stores' vectors (README: chosen by measurement; see bench/ and the closing notes).
 */
export class SqliteChunkIndex implements ChunkIndex {
  readonly kind = 'embedded';
  private db: Database.Database;

  constructor(readonly path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -65536');
  }

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
  }

  async readCheckpoint(projection: string): Promise<IndexCheckpoint | null> {
    const r = this.db.prepare(`SELECT * FROM checkpoints WHERE projection = ?`).get(projection) as Row | undefined;
    return r ? { version: r.version as number, position: { commit: BigInt(r.position_commit as string), prepare: BigInt(r.position_prepare as string) } } : null;
  }

  async write(ops: ChunkIndexOp[], cp: { projection: string } & IndexCheckpoint): Promise<void> {
    const tx = this.db.transaction(() => {
      for (const op of ops) this.applyOp(op);
      this.db
        .prepare(
          `INSERT INTO checkpoints (projection, version, position_commit, position_prepare) VALUES (?, ?, ?, ?)
           ON CONFLICT (projection) DO UPDATE SET version = excluded.version, position_commit = excluded.position_commit, position_prepare = excluded.position_prepare`,
        )
        .run(cp.projection, cp.version, cp.position.commit.toString(), cp.position.prepare.toString());
    });
    tx();
  }

  private applyOp(op: ChunkIndexOp): void {
    const db = this.db;
    switch (op.op) {
      case 'putFile': {
        const f = op.file;
        const cur = db.prepare(`SELECT generation FROM files WHERE store_id = ? AND file_id = ?`).get(f.storeId, f.fileId) as Row | undefined;
        if (cur && (cur.generation as number) > f.generation) return;
        if (cur && (cur.generation as number) < f.generation) db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(f.storeId, f.fileId);
        db.prepare(
          `INSERT INTO files (store_id, file_id, organization_id, filename, external_id, metadata, generation) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (store_id, file_id) DO UPDATE SET filename = excluded.filename, external_id = excluded.external_id, metadata = excluded.metadata, generation = excluded.generation`,
        ).run(f.storeId, f.fileId, f.organizationId, f.filename, f.externalId, JSON.stringify(f.metadata ?? null), f.generation);
        return;
      }
      case 'setChunks': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        const ins = db.prepare(
          `INSERT INTO chunks (store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const c of op.chunks) ins.run(op.storeId, op.fileId, c.chunkIndex, c.text, c.offset, c.mimeType, c.generatedMetadata ? JSON.stringify(c.generatedMetadata) : null);
        return;
      }
      case 'setVectors': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        const upd = db.prepare(`UPDATE chunks SET vector = ?, model = ? WHERE store_id = ? AND file_id = ? AND chunk_index = ?`);
        op.vectors.forEach((v, i) => upd.run(Buffer.from(v.buffer, v.byteOffset, v.byteLength), op.model, op.storeId, op.fileId, i));
        return;
      }
      case 'setMetadata':
        db.prepare(`UPDATE files SET metadata = ? WHERE store_id = ? AND file_id = ?`).run(JSON.stringify(op.metadata ?? null), op.storeId, op.fileId);
        return;
      case 'deleteFile':
        db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        db.prepare(`DELETE FROM files WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        return;
      case 'deleteStore':
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
      void version;
    })();
  }

  async getChunks(storeId: string, fileId: string, indices?: number[] | null): Promise<IndexedChunk[]> {
    const rows = this.db
      .prepare(`SELECT store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata, model FROM chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index`)
      .all(storeId, fileId) as Row[];
    const want = indices ? new Set(indices) : null;
    return rows.filter((r) => !want || want.has(r.chunk_index as number)).map(toChunk);
  }

  private candidateSql(q: ChunkQuery, params: unknown[]): string {
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
    const match = ftsQuery(q.text ?? '');
    if (!match || !q.storeIds.length) return [];
    const params: unknown[] = [match];
    const where = this.candidateSql(q, params);
    const limit = q.filter ? Math.max(q.topK * 20, 1000) : q.topK;
    params.push(limit);
    const rows = this.db
      .prepare(
        `SELECT c.store_id, c.file_id, c.chunk_index, c.text, c.offset, c.mime_type, c.generated_metadata, c.model,
                f.filename, f.external_id, f.metadata, -bm25(chunks_fts) AS score
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id
          WHERE chunks_fts MATCH ? AND ${where} ORDER BY bm25(chunks_fts) LIMIT ?`,
      )
      .all(...params) as Row[];
    return this.postFilter(rows, q).slice(0, q.topK);
  }

  async searchDense(q: ChunkQuery): Promise<ScoredChunk[]> {
    if (!q.vector || !q.storeIds.length) return [];
    const params: unknown[] = [];
    const where = this.candidateSql(q, params);
    const qv = normalize(q.vector);
    const top: Array<{ score: number; id: number }> = [];
    if (q.model) params.push(q.model);
    const stmt = this.db.prepare(`SELECT c.id, c.vector FROM chunks c WHERE ${where} AND c.vector IS NOT NULL${q.model ? ' AND c.model = ?' : ''}`);
    const k = q.filter ? Math.max(q.topK * 20, 1000) : q.topK;
    for (const r of stmt.iterate(...params) as IterableIterator<{ id: number; vector: Buffer }>) {
      const v = new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4);
      if (v.length !== qv.length) continue;
      const s = cosine(qv, v);
      if (top.length < k || s > top[top.length - 1].score) {
        top.push({ score: s, id: r.id });
        top.sort((a, b) => b.score - a.score);
        if (top.length > k) top.pop();
      }
    }
    if (!top.length) return [];
    const byId = new Map(top.map((t) => [t.id, t.score]));
    const rows = this.db
      .prepare(
        `SELECT c.id, c.store_id, c.file_id, c.chunk_index, c.text, c.offset, c.mime_type, c.generated_metadata, c.model, f.filename, f.external_id, f.metadata
           FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.id IN (${top.map(() => '?').join(',')})`,
      )
      .all(...top.map((t) => t.id)) as Row[];
    for (const r of rows) r.score = byId.get(r.id as number);
    rows.sort((a, b) => (b.score as number) - (a.score as number));
    return this.postFilter(rows, q).slice(0, q.topK);
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
    const conds = [`c.store_id = ?`];
    params.push(q.storeId);
    if (q.fileIds?.include) {
      conds.push(`c.file_id IN (${q.fileIds.include.map(() => '?').join(',') || "''"})`);
      params.push(...q.fileIds.include);
    }
    if (q.fileIds?.exclude?.length) {
      conds.push(`c.file_id NOT IN (${q.fileIds.exclude.map(() => '?').join(',')})`);
      params.push(...q.fileIds.exclude);
    }
    if (q.after) {
      conds.push(`(c.file_id, c.chunk_index) > (?, ?)`);
      params.push(q.after.fileId, q.after.chunkIndex);
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
        `SELECT c.store_id, c.file_id, c.chunk_index, c.text, c.offset, c.mime_type, c.generated_metadata, c.model, f.filename, f.external_id, f.metadata, 0 AS score
           FROM ${from} JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id
          WHERE ${conds.join(' AND ')} ORDER BY c.file_id, c.chunk_index LIMIT ?`,
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

/** Words of the query as quoted FTS5 terms, OR-ed (BM25 ranks documents matching more and rarer terms first). */
export function ftsQuery(text: string): string {
  const terms = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const unique = [...new Set(terms)].slice(0, 64);
  return unique.map((t) => `"${t}"`).join(' OR ');
}

function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / n;
  return out;
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

import Database from 'better-sqlite3';
import { candidateSql, HIT_COLUMNS, postFilter } from './sqlite.rows';
import { Row, toFile } from './sqlite.schema';
import { IndexedFile, ScanQuery, ScoredChunk } from '../chunk-index.port';

/** The embedded chunk index's reads that are not searches: a store's chunks in order (grep/regex candidates), its files, its counts. */

/** A store's chunks in index order after `q.after`, narrowed by the trigram index to those with every trigram of `q.contains`' literals. */
export function scanChunks(db: Database.Database, q: ScanQuery): ScoredChunk[] {
  const params: unknown[] = [];
  const conds = [candidateSql({ storeIds: [q.storeId], fileIds: q.fileIds }, params)];
  if (q.after) {
    // index order is insertion order (rowid): FTS5 yields matches in it, so LIMIT stops early
    conds.push(
      `c.id > COALESCE((SELECT id FROM chunks WHERE store_id = ? AND file_id = ? AND chunk_index = ?), 9223372036854775807)`,
    );
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
  const rows = db
    .prepare(
      `SELECT ${HIT_COLUMNS}, 0 AS score
         FROM ${from} JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id
        WHERE ${conds.join(' AND ')} ORDER BY ${literals.length ? 'chunks_tri.rowid' : 'c.id'} LIMIT ?`,
    )
    .all(...params) as Row[];
  return postFilter(rows, { storeIds: [q.storeId], topK: q.limit });
}

/** The files of these stores, by store and file id. */
export function listFiles(db: Database.Database, storeIds: string[], limit: number): IndexedFile[] {
  if (!storeIds.length) return [];
  const rows = db
    .prepare(
      `SELECT * FROM files WHERE store_id IN (${storeIds.map(() => '?').join(',')}) ORDER BY store_id, file_id LIMIT ?`,
    )
    .all(...storeIds, limit) as Row[];
  return rows.map(toFile);
}

/** How many files, chunks and vectors the index (or one store) holds. */
export function countRows(db: Database.Database, storeId?: string): { files: number; chunks: number; vectors: number } {
  const w = storeId ? ' WHERE store_id = ?' : '';
  const args = storeId ? [storeId] : [];
  const files = (db.prepare(`SELECT count(*) AS n FROM files${w}`).get(...args) as Row).n as number;
  const chunks = (db.prepare(`SELECT count(*) AS n FROM chunks${w}`).get(...args) as Row).n as number;
  const vectors = (
    db.prepare(`SELECT count(*) AS n FROM chunks${w}${w ? ' AND' : ' WHERE'} vector IS NOT NULL`).get(...args) as Row
  ).n as number;
  return { files, chunks, vectors };
}

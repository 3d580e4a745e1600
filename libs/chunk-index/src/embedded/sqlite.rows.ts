import { evaluateFilter } from '@larder/kernel';
import { Row, toChunk } from './sqlite.schema';
import { ChunkHit, ChunkQuery, ScoredChunk } from '../chunk-index.port';

/** The embedded chunk index's rows as the port's hits and scored chunks, and the SQL that selects a query's chunks. */

/** The columns a hit is made of (`c`: chunks, `f`: files). */
export const HIT_COLUMNS = `c.id, c.store_id, c.file_id, c.chunk_index, c.text, c.offset, c.mime_type, c.generated_metadata, c.model, f.filename, f.external_id, f.metadata`;
/** The columns of a hit that is not read yet (`searchLexical`, `searchDense`): the chunk's place. */
export const KEY_COLUMNS = `c.id, c.store_id, c.file_id, c.chunk_index`;

/** A row of HIT_COLUMNS as the port's scored chunk (the chunk's fields added to, not spread into a copy: an answer reads 100 at a time). */
export function toScored(r: Row, score: number): ScoredChunk {
  return Object.assign(toChunk(r), {
    score,
    filename: r.filename as string,
    externalId: (r.external_id as string) ?? null,
    metadata: r.metadata ? (JSON.parse(r.metadata as string) as unknown) : null,
  });
}

export const rowHit = (r: Row): ChunkHit => ({
  storeId: r.store_id as string,
  fileId: r.file_id as string,
  chunkIndex: r.chunk_index as number,
  score: r.score as number,
  ref: r.id as number,
});

/** The SQL condition on chunks `c` of the query's stores and files (their values pushed to `params`). */
export function candidateSql(q: Pick<ChunkQuery, 'storeIds' | 'fileIds'>, params: unknown[]): string {
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

/** The rows the query's metadata filter accepts (rows of HIT_COLUMNS where it has one; without a filter, all of them). */
export function passingRows(rows: Row[], q: Pick<ChunkQuery, 'filter'>): Row[] {
  const filter = q.filter;
  if (!filter) return rows;
  return rows.filter((r) => {
    const c = toScored(r, 0);
    return evaluateFilter(filter, { file: c.metadata, chunk: c.generatedMetadata });
  });
}

/** Rows of HIT_COLUMNS (with their scores) as scored chunks, those the query's metadata filter refuses left out. */
export function postFilter(rows: Row[], q: ChunkQuery): ScoredChunk[] {
  return passingRows(rows, q).map((r) => toScored(r, r.score as number));
}

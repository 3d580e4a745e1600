import { LIMITS } from '@larder/kernel';
import { ChunkSort, metadataSort, metadataValue, namesField, numericValue, sortPair } from './chunk-sort';
import type { RankedChunk } from './retrieval';

/**
 * The order of a search's results (`sort_by`): by score (the default, best first), by the store
 * file's `created_at`, or by a metadata path (unprefixed or `metadata.…` the file's,
 * `generated_metadata.…` the chunk's); each either way.
 */
export type ResultSort = { by: 'score' | 'created_at'; ascending: boolean } | ({ by: 'metadata' } & ChunkSort);

/** `pagination` of a paged search: the ranked results in all, this page's place, and whether more follow. */
export interface SearchPagination {
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
}

/**
 * How deep a paged or sorted search ranks: its results are the first this many of the ranking that
 * pass the filters and `score_threshold`, each retriever asked for as many candidates, so that every
 * page of one query (and its `total`) comes from the same ranking.
 */
export const RANKING_WINDOW = LIMITS.results;

/**
 * `sort_by` of a search: `score`, `created_at` or a metadata path, or `[field, ascending]`. A bare
 * field sorts ascending as list-chunks' `sort_by` does, but a bare `score` is the default order
 * (best first). Null when the value is neither form or names no field.
 */
export function resultSort(v: unknown): ResultSort | null {
  const bare = typeof v === 'string';
  const pair = sortPair(v);
  if (!pair) return null;
  const [field, ascending] = pair;
  if (field === 'score') return { by: 'score', ascending: bare ? false : ascending };
  if (field === 'created_at') return { by: 'created_at', ascending };
  const s = metadataSort(field, ascending);
  return namesField(s) ? { by: 'metadata', ...s } : null;
}

/** Whether the sort reads more than the hits' scores (their chunks' metadata, or their files' creation times). */
export const readsChunks = (sort: ResultSort | undefined): boolean => !!sort && sort.by !== 'score';

type Key = string | number;
const keyOf = (v: unknown): Key | null => numericValue(v) ?? (typeof v === 'string' ? v : null);
/** Numbers before strings; a result without a value last, either way. */
const compareKeys = (a: Key | null, b: Key | null, ascending: boolean): number => {
  if (a === null || b === null) return a === null ? (b === null ? 0 : 1) : -1;
  if (typeof a !== typeof b) return typeof a === 'number' ? -1 : 1;
  const d = a < b ? -1 : a > b ? 1 : 0;
  return ascending ? d : -d;
};

/**
 * Results in the sort's order (stable: equal keys keep the ranking's order). `createdAt` holds each
 * result's store file creation time (ms) by `storeId/fileId`, for `created_at`.
 */
export function orderResults<
  T extends Pick<RankedChunk, 'storeId' | 'fileId' | 'score' | 'metadata' | 'generatedMetadata'>,
>(results: T[], sort: ResultSort, createdAt: Map<string, number> = new Map()): T[] {
  if (sort.by === 'score') return sort.ascending ? [...results].reverse() : results;
  let key = (c: T): Key | null => createdAt.get(fileKey(c)) ?? null;
  if (sort.by === 'metadata') {
    const path = sort;
    key = (c) => keyOf(metadataValue(c, path));
  }
  const keyed = results.map((c) => ({ c, k: key(c) }));
  return keyed.sort((x, y) => compareKeys(x.k, y.k, sort.ascending)).map((x) => x.c);
}

export const fileKey = (c: { storeId: string; fileId: string }) => `${c.storeId}/${c.fileId}`;

/** The page `[offset, offset + limit)` of a ranked window, with its pagination. */
export function pageOf<T>(window: T[], offset: number, limit: number): { page: T[]; pagination: SearchPagination } {
  const page = window.slice(offset, offset + limit);
  return { page, pagination: { total: window.length, offset, limit, has_more: offset + page.length < window.length } };
}

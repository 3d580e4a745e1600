import type { ScoredChunk } from '@larder/chunk-index';

/** A metadata path to sort chunks by: the file's metadata, or (`generated_metadata.…`) the chunk's. */
export interface ChunkSort {
  target: 'file' | 'chunk';
  path: string[];
  ascending: boolean;
}

/** `sort_by` as `[path, ascending]`: a bare path is `[path, true]`; null when it is neither form. */
export const sortPair = (v: unknown): [string, boolean] | null => {
  const pair = Array.isArray(v) ? v : [v, true];
  return pair.length === 2 && typeof pair[0] === 'string' && pair[0] && typeof pair[1] === 'boolean'
    ? (pair as [string, boolean])
    : null;
};

/** A `sort_by` path as a metadata path: unprefixed (or `metadata.…`) the file's, `generated_metadata.…` the chunk's. */
export function metadataSort(path: string, ascending: boolean): ChunkSort {
  let parts = path.split('.');
  let target: 'file' | 'chunk' = 'file';
  if (parts[0] === 'generated_metadata') [target, parts] = ['chunk', parts.slice(1)];
  else if (parts[0] === 'metadata') parts = parts.slice(1);
  return { target, path: parts, ascending };
}

/** Whether a sort's path names a field (no empty part). */
export const namesField = (s: ChunkSort): boolean => s.path.length > 0 && s.path.every((x) => !!x);

/** The value at the sort path of a chunk's (or its file's) metadata; undefined when there is none. */
export function metadataValue(
  c: Pick<ScoredChunk, 'metadata' | 'generatedMetadata'>,
  sort: Pick<ChunkSort, 'target' | 'path'>,
): unknown {
  let cur: unknown = sort.target === 'file' ? c.metadata : c.generatedMetadata;
  for (const k of sort.path)
    cur = cur && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/** A metadata value as a number (a number, or a numeric string); null otherwise. */
export function numericValue(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

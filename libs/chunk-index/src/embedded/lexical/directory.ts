import type { BlockData } from './block-data';
import type { DenseList } from './dense-list';

/** A list's block directory, as read (cached by the term's generation). */
export interface Directory {
  gen: number;
  cgen: number;
  first: Float64Array;
  last: Float64Array;
  count: Uint32Array;
  maxBody: Uint32Array;
  maxHeading: Uint32Array;
  minLength: Uint32Array;
  size: number;
  /** blocks' data as read (a cache: the oldest dropped past a bound; a new generation starts empty) */
  data: BlockData;
  /** the list decoded by id (denseForm; undefined: not built, null: not worth it), dropped with the directory */
  dense?: DenseList | null;
}

/** Blocks of a list as one statement reads them: their directory entries and data (`all`, the blocks' data end to end; `length`, each one's). */
export interface ListPart {
  block: number[];
  first: number[];
  last: number[];
  count: number[];
  maxBody: number[];
  maxHeading: number[];
  minLength: number[];
  length: number[];
  all: Buffer | null;
}

/** A list's id range and postings. */
export function listSpan(dir: Directory): { first: number; range: number; postings: number } {
  let postings = 0;
  for (let j = 0; j < dir.size; j++) postings += dir.count[j];
  const first = dir.size ? dir.first[0] : 0;
  return { first, range: dir.size ? dir.last[dir.size - 1] - first + 1 : 0, postings };
}

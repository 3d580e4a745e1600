import { Bm25Params, tfNorm } from '../../analysis/bm25';

/**
 * A list decoded by chunk id, for the flat scorer: `pairs[id - first]` is 0 where the chunk is not in the
 * list, else 1 + the index of its (body count, heading count, length) among the list's distinct ones
 * (`body`, `heading`, `length`, index 0 unused). Scoring it is then a lookup per id in a table of the
 * list's contributions for this query (the same expression as a posting's, so the same double), added in
 * the query's term order as before: no varints read. Kept beside the list's blocks for lists of at least
 * DENSE_MIN_POSTINGS postings that fill at least 1/DENSE_RANGE_PER_POSTING of their id range (2 bytes an
 * id: at most 16 a posting, against ~4 compressed), within the block cache's bound.
 */
export interface DenseList {
  first: number;
  pairs: Uint16Array;
  body: Uint32Array;
  heading: Uint32Array;
  length: Uint32Array;
  /** distinct (body, heading, length), index 0 included */
  kinds: number;
  /** the list's ids less `first` by kind (then id): kind k's are byKind[start[k] .. start[k + 1]) */
  byKind: Uint32Array;
  start: Uint32Array;
  bytes: number;
  /** its kinds' tfNorm at the store's average length and parameters of the last query (kindNorms), and its non-empty kinds by it, largest first, once asked (kindOrder) */
  order?: {
    avgLength: number;
    k1: number;
    b: number;
    headingWeight: number;
    norm: Float64Array;
    kinds: Int32Array | null;
  };
}

/**
 * A dense list's kinds' tfNorm for a store's average length and parameters, kept on the list for the next
 * query of the same (a term's contribution to a chunk of kind k is its positive weight × idf × norm[k]).
 */
export function kindNorms(d: DenseList, avgLength: number, p: Bm25Params): NonNullable<DenseList['order']> {
  const o = d.order;
  if (o && o.avgLength === avgLength && o.k1 === p.k1 && o.b === p.b && o.headingWeight === p.headingWeight) return o;
  const norm = new Float64Array(d.kinds);
  for (let k = 1; k < d.kinds; k++) norm[k] = tfNorm(d.body[k], d.heading[k], d.length[k], avgLength, p);
  return (d.order = { avgLength, k1: p.k1, b: p.b, headingWeight: p.headingWeight, norm, kinds: null });
}

/** A dense list's non-empty kinds by tfNorm, largest first, then by kind (as by contribution: every query orders them alike), kept with kindNorms. */
export function kindOrder(d: DenseList, avgLength: number, p: Bm25Params): Int32Array {
  const o = kindNorms(d, avgLength, p);
  if (o.kinds) return o.kinds;
  const { norm } = o;
  const ks: number[] = [];
  for (let k = 1; k < d.kinds; k++) if (d.start[k + 1] > d.start[k]) ks.push(k);
  ks.sort((a, b) => norm[b] - norm[a] || a - b);
  return (o.kinds = Int32Array.from(ks));
}

/** Lists of fewer postings are never kept dense (a query reads them in well under a millisecond). */
export const DENSE_MIN_POSTINGS = 8192;
/** A list is kept dense only where its id range is at most this many times its postings. */
export const DENSE_RANGE_PER_POSTING = 8;

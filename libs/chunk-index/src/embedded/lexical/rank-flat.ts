import { TopK } from '../top-k';
import { MAX_RUN } from './block-cache';
import { BlockSink, BODY_SLOTS, LENGTH_SLOTS, listWeights, scoreBlock } from './block-scores';
import type { Bm25Params } from '../../analysis/bm25';
import type { StoreStats } from './input';
import type { ListRef } from './list';
import type { FlatArrays, LexicalState } from './state';

/**
 * Where the query's postings are at least this share of the id range, the flat scorer keeps no list of
 * the chunks it touched (pushing 200k ids costs more than zeroing the array) but each span's best sum,
 * and takes its top from the spans best first.
 */
export const DENSE_SHARE = 1 / 16;
/** The dense flat scorer keeps each span of 2^SPAN_SHIFT ids' best sum, and reads the spans for its top best first. */
export const SPAN_SHIFT = 8;

/**
 * The flat scorer's arrays, for ranges of ids up to `range` (allocated, or grown, with a quarter more:
 * a later query of a slightly wider range does not allocate again. The preload allocates them before
 * any query needs them, for every id of the file.) Their pages are written once as they are allocated
 * (`fill`): a new typed array's memory is mapped on first touch, page by page, and a query that touched
 * its ids' pages first paid a fault for each. At 1M (a 10 MB `acc`), the first query after the preload
 * to add a 4,112-posting list into pages no query had written took 20–34 ms instead of 0.1–0.5, one
 * fault for about every other posting; writing the 11 MB in order takes ~4 ms, once.
 */
export function flatArrays(state: LexicalState, range: number): FlatArrays {
  let flat = state.flat;
  if (!flat || flat.acc.length < range) {
    const size = Math.max(range + (range >>> 2), 4096);
    flat = state.flat = {
      acc: new Float64Array(size).fill(0),
      seen: new Uint8Array(size).fill(0),
      memo: new Float64Array(BODY_SLOTS * LENGTH_SLOTS).fill(0),
      memoOf: new Uint32Array(BODY_SLOTS * LENGTH_SLOTS).fill(0),
      lists: 0,
      spanMax: new Float64Array((size >>> SPAN_SHIFT) + 1).fill(-1),
    };
  }
  return flat;
}

/**
 * One store's exact BM25 top `limit`, term at a time: every posting of every list read in the query's
 * term order and summed into a flat array by chunk id (ids `lo` to `lo + range`), then the top taken. A
 * chunk's score is the same sum, in the same order, as MaxScore's. A posting's contribution is
 * `scale × tfNorm` computed once per (body count, length) of a list and then looked up (the same
 * expression, so the same double). Where the postings are dense in the range, the top is taken by one
 * scan of the array (no list of touched ids to keep).
 */
export function rankFlat(
  state: LexicalState,
  p: Bm25Params,
  s: StoreStats,
  lists: ListRef[],
  lo: number,
  range: number,
  limit: number,
  allowed: ((id: number) => boolean) | null,
  dead: Set<number> | null,
): Array<{ id: number; score: number }> {
  const flat = flatArrays(state, range);
  const { acc, seen, spanMax } = flat;
  const spans = (range >>> SPAN_SHIFT) + 1;
  let postings = 0;
  for (const l of lists) postings += l.df;
  const dense = postings >= range * DENSE_SHARE;
  const touched: number[] = [];
  const sink: BlockSink = { flat: true, acc, seen, spanMax, spanShift: SPAN_SHIFT, dense, touched };
  try {
    for (const { dir, scale, load } of lists) {
      const w = listWeights(flat, scale, s.avgLength, p);
      for (let bi = 0; bi < dir.size; bi++) scoreBlock(w, load(bi, MAX_RUN), dir.count[bi], dir.first[bi], lo, sink);
    }
    const heap = new TopK(limit);
    // below the k-th score a chunk cannot enter (a tie is the heap's to judge, by id)
    let min = -Infinity;
    const consider = (x: number) => {
      const v = acc[x];
      if (v < min) return;
      const id = x + lo;
      if ((allowed && !allowed(id)) || (dead && dead.has(id))) return;
      if (heap.push(id, v) && heap.full) min = heap.threshold;
    };
    if (dense) {
      // spans of ids by their best chunk, best first, until the k-th score is above a span's best
      const order: number[] = [];
      // (a span no posting reached keeps -1; a chunk's sum may be 0, as a heading-only match with heading weight 0)
      for (let j = 0; j < spans; j++) if (spanMax[j] >= 0) order.push(j);
      order.sort((a, b) => spanMax[b] - spanMax[a]);
      for (const j of order) {
        if (spanMax[j] < min) break;
        for (let x = j << SPAN_SHIFT, end = Math.min(range, (j + 1) << SPAN_SHIFT); x < end; x++)
          if (seen[x]) consider(x);
      }
    } else {
      for (const x of touched) consider(x);
    }
    return heap.sorted();
  } finally {
    // the arrays are left zero for the next query, whatever happened
    if (dense) {
      acc.fill(0, 0, range);
      seen.fill(0, 0, range);
      spanMax.fill(-1, 0, spans);
    } else
      for (const x of touched) {
        acc[x] = 0;
        seen[x] = 0;
      }
  }
}

import { TopK } from '../top-k';
import type { Bm25Params } from '../../analysis/bm25';
import { MAX_RUN } from './block-cache';
import { BlockSink, listWeights, scoreBlock } from './block-scores';
import { DenseList, kindNorms, kindOrder } from './dense-list';
import type { StoreStats } from './input';
import { EPS, ListRef } from './list';
import type { FlatArrays } from './state';

/**
 * The top by a list's impacts where lists are dense (DenseList), Fagin's threshold algorithm: each dense
 * list's chunks are read a kind at a time (a kind: one (body, heading, length), so one contribution), the
 * largest contribution first, always from the list whose next kind gives most; each chunk met is scored
 * whole at once (its kind in every list looked up by id, the contributions added in the query's term order
 * from 0, as rankFlat adds them: the same double), once (a chunk whose kind in another list was read
 * before is passed over). A chunk not met yet scores at most the sum of the lists' next contributions: once
 * that is below the k-th score nothing more can enter. The other (sparse) lists' chunks are all scored
 * first, walked in id order. Same top as rankFlat's and MaxScore's; where the common words' top is made
 * of their higher counts, most of their postings are never read.
 */
export function rankImpact(
  flat: FlatArrays,
  p: Bm25Params,
  s: StoreStats,
  lists: ListRef[],
  denses: Array<DenseList | null>,
  lo: number,
  limit: number,
  allowed: ((id: number) => boolean) | null,
  dead: Set<number> | null,
): Array<{ id: number; score: number }> {
  const avgLength = s.avgLength;
  const m = lists.length;
  // per list: a dense list's contributions by kind; another's postings (ids, contributions)
  const tables: Array<Float64Array | null> = [];
  const ids: Array<Int32Array | null> = [];
  const xs: Array<Float64Array | null> = [];
  for (let j = 0; j < m; j++) {
    const { dir, scale, load } = lists[j];
    const d = denses[j];
    if (d) {
      // (scale × tfNorm: the same double as scale * tfNorm(…) gives)
      const { norm } = kindNorms(d, avgLength, p);
      const t = new Float64Array(d.kinds);
      for (let k = 1; k < d.kinds; k++) t[k] = scale * norm[k];
      tables.push(t);
      ids.push(null);
      xs.push(null);
      continue;
    }
    // (contributions as rankFlat computes them: the same doubles)
    const w = listWeights(flat, scale, avgLength, p);
    let postings = 0;
    for (let bi = 0; bi < dir.size; bi++) postings += dir.count[bi];
    const sink: BlockSink = { flat: false, ids: new Int32Array(postings), xs: new Float64Array(postings), at: 0 };
    for (let bi = 0; bi < dir.size; bi++) scoreBlock(w, load(bi, MAX_RUN), dir.count[bi], dir.first[bi], 0, sink);
    tables.push(null);
    ids.push(sink.ids);
    xs.push(sink.xs);
  }
  const im: Impact = {
    m,
    denses,
    tables,
    ids,
    xs,
    seen: flat.seen,
    lo,
    sparse: ids.some((x) => x),
    touched: new Int32Array(0),
    touchedCount: 0,
    heap: new TopK(limit),
    min: -Infinity,
    allowed,
    dead,
    read: [],
    step: 0,
  };
  try {
    // the sparse lists' chunks (each marked: the dense lists' reading passes them over)
    if (im.sparse) sparsePass(im, flat.acc);
    // the dense lists a kind at a time, the largest contribution first
    const order: Array<Int32Array | null> = [];
    const next = new Int32Array(m);
    for (let j = 0; j < m; j++) {
      const d = denses[j];
      if (!d) {
        order.push(null);
        im.read.push(null);
        continue;
      }
      // (by tfNorm: ordered as by contribution, the scale being positive)
      order.push(kindOrder(d, avgLength, p));
      im.read.push(new Int32Array(d.kinds).fill(0x7fffffff));
    }
    for (let step = 1; ; step++) {
      // the most a chunk not met yet may score, and the list whose next kind gives most
      let bound = 0;
      let best = -1;
      let bestLevel = -1;
      for (let j = 0; j < m; j++) {
        const o = order[j];
        if (!o || next[j] >= o.length) continue;
        const l = tables[j]![o[next[j]]];
        bound += l;
        if (l > bestLevel) {
          bestLevel = l;
          best = j;
        }
      }
      if (best < 0 || bound * (1 + EPS) < im.min) break;
      const k = order[best]![next[best]++];
      im.read[best]![k] = step;
      im.step = step;
      readKind(im, best, k);
    }
    return im.heap.sorted();
  } finally {
    for (let i = 0; i < im.touchedCount; i++) flat.seen[im.touched[i]] = 0;
  }
}

/** What rankImpact's passes share: the lists, the top so far and its k-th score (`min`), which kinds were read at which step. */
export interface Impact {
  m: number;
  denses: Array<DenseList | null>;
  tables: Array<Float64Array | null>;
  ids: Array<Int32Array | null>;
  xs: Array<Float64Array | null>;
  seen: Uint8Array;
  lo: number;
  sparse: boolean;
  /** the sparse lists' chunks (ids less lo), marked in seen: the first touchedCount */
  touched: Int32Array;
  touchedCount: number;
  heap: TopK;
  min: number;
  allowed: ((id: number) => boolean) | null;
  dead: Set<number> | null;
  /** per dense list, the step at which each kind was read (0x7fffffff: not yet) */
  read: Array<Int32Array | null>;
  step: number;
}

/** A chunk and its sum offered to the top. */
export function offer(im: Impact, id: number, v: number): void {
  if (v < im.min) return;
  if ((im.allowed && !im.allowed(id)) || (im.dead && im.dead.has(id))) return;
  if (im.heap.push(id, v) && im.heap.full) im.min = im.heap.threshold;
}

/**
 * rankImpact's first pass: every chunk of its sparse lists (marked in `seen`, listed in `touched`), its sum
 * taken term at a time in `acc` (a sparse list's postings added, a dense list's contributions to those chunks
 * looked up), then offered (and `acc` left zero).
 */
export function sparsePass(im: Impact, acc: Float64Array): void {
  const { m, denses, tables, ids, xs, seen, lo } = im;
  let total = 0;
  for (const li of ids) if (li) total += li.length;
  const touched = (im.touched = new Int32Array(total));
  let n = 0;
  for (let j = 0; j < m; j++) {
    const li = ids[j];
    if (li) n = mark(seen, li, lo, touched, n);
  }
  im.touchedCount = n;
  for (let j = 0; j < m; j++) {
    const li = ids[j];
    if (li) addSparse(acc, li, xs[j]!, lo);
    else addLookups(acc, touched, n, denses[j]!, tables[j]!, lo);
  }
  for (let i = 0; i < n; i++) {
    const x = touched[i];
    const v = acc[x];
    acc[x] = 0;
    offer(im, x + lo, v);
  }
}

/** Marks a sparse list's chunks in `seen` (by id less lo), those not marked yet listed in `touched` from `n`; answers the new count. */
export function mark(seen: Uint8Array, ids: Int32Array, lo: number, touched: Int32Array, n: number): number {
  for (let i = 0; i < ids.length; i++) {
    const x = ids[i] - lo;
    if (!seen[x]) {
      seen[x] = 1;
      touched[n++] = x;
    }
  }
  return n;
}

/** Adds a sparse list's contributions to `acc` (by id less lo). */
export function addSparse(acc: Float64Array, ids: Int32Array, xs: Float64Array, lo: number): void {
  for (let i = 0; i < ids.length; i++) acc[ids[i] - lo] += xs[i];
}

/** Adds a dense list's contributions to the chunks `touched` (ids less lo) in `acc`. */
export function addLookups(
  acc: Float64Array,
  touched: Int32Array,
  count: number,
  d: DenseList,
  table: Float64Array,
  lo: number,
): void {
  const { pairs, first } = d;
  const n = pairs.length;
  for (let i = 0; i < count; i++) {
    const x = touched[i];
    const y = x + lo - first;
    if (y >= 0 && y < n) acc[x] += table[pairs[y]];
  }
}

/** Reads kind `k` of dense list `best`: each of its chunks not met before (in a sparse list, or in a kind of another list read earlier) scored whole. */
export function readKind(im: Impact, best: number, k: number): void {
  const { m, denses, tables, seen, lo, sparse, read, step } = im;
  const { byKind, start, first } = denses[best]!;
  for (let g = start[k], end = start[k + 1]; g < end; g++) {
    const id = first + byKind[g];
    if (sparse && seen[id - lo]) continue;
    let v = 0;
    let met = false;
    for (let j = 0; j < m; j++) {
      const dl = denses[j];
      if (!dl) continue;
      const x = id - dl.first;
      if (x < 0 || x >= dl.pairs.length) continue;
      const kj = dl.pairs[x];
      if (kj === 0) continue;
      if (j !== best && read[j]![kj] < step) {
        met = true;
        break;
      }
      v += tables[j]![kj];
    }
    if (!met) offer(im, id, v);
  }
}

import { TopK } from '../top-k';
import type { Bm25Params } from '../../analysis/bm25';
import { Cursor } from './cursor';
import type { StoreStats } from './input';
import { boundsOf, EPS, ListRef } from './list';

/**
 * One store's exact BM25 top `limit` by MaxScore with block-max bounds. Terms are ordered by their
 * list's largest block bound; those whose bounds together cannot lift a chunk above the current k-th
 * score are non-essential: candidates come from the other lists only, and a non-essential list is
 * probed (skipping whole blocks by their directory) only while the candidate could still enter. Before
 * scoring a candidate, the bounds of the blocks holding it in every list are summed; when they cannot
 * enter, every candidate up to the nearest block boundary is skipped undecoded. A chunk's score is
 * summed in the query's term order, whichever lists gave it.
 */
export function rankMaxScore(
  p: Bm25Params,
  s: StoreStats,
  lists: ListRef[],
  limit: number,
  allowed: ((id: number) => boolean) | null,
  dead: Set<number> | null,
): Array<{ id: number; score: number }> {
  const cursors = lists.map(
    (l, i) => new Cursor(l.dir, l.scale, boundsOf(l, s.avgLength, p), s.avgLength, p, l.load, i),
  );
  // a chunk's score is summed in the query's term order, whichever lists gave it: equal chunks score equal
  const contrib = new Float64Array(cursors.length);
  cursors.sort((a, b) => a.ub - b.ub);
  const m = cursors.length;
  const prefix = new Float64Array(m);
  for (let i = 0, acc = 0; i < m; i++) prefix[i] = acc += cursors[i].ub;
  const heap = new TopK(limit);
  let theta = -Infinity;
  let ne = 0; // cursors[0..ne) are non-essential
  // candidates up to this id lie in blocks whose bounds were found to let them in at the current threshold
  let checkedTo = -1;
  const updateNe = () => {
    while (ne < m && prefix[ne] * (1 + EPS) <= theta) ne++;
    checkedTo = -1;
  };
  for (;;) {
    if (ne >= m) break;
    // the smallest id the essential lists may give next: a lower bound while a list's block is not decoded
    let d = Infinity;
    for (let i = ne; i < m; i++) {
      const x = cursors[i].lower();
      if (x < d) d = x;
    }
    if (d === Infinity) break;
    if (heap.full && d > checkedTo) {
      // the essential lists' blocks at d with the other lists' whole-list bounds: skips runs of blocks undecoded
      let bound = ne > 0 ? prefix[ne - 1] : 0;
      let end = Infinity;
      for (let i = ne; i < m; i++) {
        const c = cursors[i];
        const j = c.blockAt(d);
        if (j >= c.dir.size) continue;
        if (c.dir.first[j] > d) end = Math.min(end, c.dir.first[j] - 1);
        else {
          bound += c.blockUb[j];
          end = Math.min(end, c.dir.last[j]);
        }
      }
      if (bound * (1 + EPS) > theta) {
        // every list's block at d
        bound = 0;
        end = Infinity;
        for (let i = 0; i < m; i++) {
          const c = cursors[i];
          const j = c.blockAt(d);
          if (j >= c.dir.size) continue;
          if (c.dir.first[j] > d) end = Math.min(end, c.dir.first[j] - 1);
          else {
            bound += c.blockUb[j];
            end = Math.min(end, c.dir.last[j]);
          }
        }
      }
      if (bound * (1 + EPS) <= theta) {
        for (let i = ne; i < m; i++) cursors[i].advance(end + 1);
        continue;
      }
      // the same blocks hold every id up to end: their bounds need no second look until the threshold moves
      checkedTo = end;
    }
    // d may enter: decode the essential blocks that may hold it, then d is a chunk of one of them (or moves on)
    let shallow = false;
    for (let i = ne; i < m; i++) {
      const c = cursors[i];
      if (!c.decoded && c.lower() === d) {
        c.doc();
        shallow = true;
      }
    }
    if (shallow) continue;
    if ((allowed && !allowed(d)) || (dead && dead.has(d))) {
      for (let i = ne; i < m; i++) if (cursors[i].decoded && cursors[i].doc() === d) cursors[i].next();
      continue;
    }
    let score = 0;
    contrib.fill(0);
    for (let i = ne; i < m; i++) {
      const c = cursors[i];
      if (c.decoded && c.doc() === d) {
        const x = c.score();
        score += x;
        contrib[c.order] = x;
        c.next();
      }
    }
    let pruned = false;
    for (let i = ne - 1; i >= 0; i--) {
      if ((score + prefix[i]) * (1 + EPS) <= theta) {
        pruned = true;
        break;
      }
      const c = cursors[i];
      // a dense list (kept decoded by id) is looked up, not walked to d
      const x = c.dense ? c.lookup(d) : c.scoreAt(d);
      if (x !== 0) {
        score += x;
        contrib[c.order] = x;
      }
    }
    if (pruned) continue;
    score = 0;
    for (let i = 0; i < m; i++) score += contrib[i];
    if (heap.push(d, score) && heap.full) {
      theta = heap.threshold;
      updateNe();
    }
  }
  return heap.sorted();
}

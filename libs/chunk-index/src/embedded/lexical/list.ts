import type Database from 'better-sqlite3';
import { MAX_RUN, readRun } from './block-cache';
import { Bm25Params, idf, tfNorm } from '../../analysis/bm25';
import type { Directory } from './directory';
import { directory } from './directory-cache';
import type { StoreStats } from './input';
import type { LexicalState } from './state';

/** Bounds are inflated by this much before they prune, so rounding never prunes a chunk that belongs in the top. */
export const EPS = 1e-9;

/** A list's bounds: per block, an upper bound of the term's weighted score in it, and their largest. */
export interface Bounds {
  blockUb: Float64Array;
  ub: number;
}

/** A list's block bounds, computed once per query (by the scorer choice, then MaxScore's cursor). */
export function boundsOf(l: ListRef, avgLength: number, p: Bm25Params): Bounds {
  if (l.bounds) return l.bounds;
  const d = l.dir;
  const blockUb = new Float64Array(d.size);
  let ub = 0;
  for (let j = 0; j < d.size; j++) {
    const u = l.scale * tfNorm(d.maxBody[j], d.maxHeading[j], d.minLength[j], avgLength, p);
    blockUb[j] = u;
    if (u > ub) ub = u;
  }
  return (l.bounds = { blockUb, ub });
}

/** A term's list in a store: its directory, weighted idf and block reader. */
export interface ListRef {
  dir: Directory;
  scale: number;
  /** a block's data (read with at least `ahead` blocks from it where not kept) */
  load: (bi: number, ahead?: number) => Uint8Array;
  df: number;
  /** its block bounds, once computed (boundsOf) */
  bounds?: Bounds;
}

/**
 * A query's lists in a store, in its term order (terms of positive weight that the store holds), each
 * with its block reader: a block's data is kept between queries (bounded), and read in runs of blocks
 * while the list is read in order.
 */
export function queryLists(
  db: Database.Database,
  state: LexicalState,
  s: StoreStats,
  weights: Map<string, number>,
  cacheBytes: number,
): ListRef[] {
  const st = (state.statements ??= {});
  const termStmt = (st.term ??= db.prepare(`SELECT df, gen FROM lex_terms WHERE store_key = ? AND term = ?`));
  const lists: ListRef[] = [];
  for (const [term, w] of weights) {
    if (!(w > 0)) continue;
    const r = termStmt.get(s.key, term) as { df: number; gen: number } | undefined;
    if (!r || r.df <= 0) continue;
    const { dir } = directory(db, state, s, term, r.gen, cacheBytes);
    if (!dir.size) continue;
    const scale = w * idf(s.n, r.df);
    let run = 1;
    let lastRead = -2;
    const load = (bi: number, ahead = 1): Uint8Array => {
      const have = dir.data.get(bi);
      if (have) return have;
      // a list probed block after block (or a few apart) is read ahead too
      run = Math.max(ahead, bi > lastRead && bi - lastRead <= Math.max(run, 4) ? Math.min(run * 2, MAX_RUN) : 1);
      const got = readRun(db, state, s.key, term, dir, bi, bi + run, cacheBytes);
      lastRead = bi + run - 1;
      return got;
    };
    lists.push({ dir, scale, load, df: r.df });
  }
  return lists;
}

import type Database from 'better-sqlite3';
import { DEFAULT_BLOCK_CACHE_BYTES, keepDense, MAX_RUN } from './block-cache';
import { DenseBuilder, denseWorthy } from './dense-builder';
import { DENSE_MIN_POSTINGS, DenseList } from './dense-list';
import type { LexicalInput, StoreStats } from './input';
import { boundsOf, ListRef, queryLists } from './list';
import { rankMaxScore } from './max-score';
import { DENSE_SHARE, flatArrays, rankFlat } from './rank-flat';
import { rankImpact } from './rank-impact';
import type { LexicalState } from './state';

/**
 * Query postings up to which a store is scored term at a time (every posting read once) rather than by
 * MaxScore. Measured in process (lexicalProgram, top 50): on CISI (1,478 chunks, long queries of ~34
 * terms, ~4,800 postings at p50, 11,000 at most) MaxScore spends ~0.6 µs a posting, nearly every chunk a
 * candidate, and the flat scorer is 2–3× faster; on the synthetic store of search-speed (3-word queries)
 * the flat scorer is a little faster at 20k chunks (≤ ~15k postings) but slower at 100k chunks from
 * 15k postings on (MaxScore prunes most of them: 0.98 vs 1.29 ms at 15–25k postings).
 */
export const FLAT_MAX_POSTINGS = 16_384;
/**
 * Above FLAT_MAX_POSTINGS, the flat scorer still where the query's postings are at most this many times
 * those of the list MaxScore must walk whole (the one of the largest bound: every chunk of it is a
 * candidate), for there MaxScore prunes little and costs several times as much a posting. Measured
 * in process on search-speed's 1M store (3-word queries, top 10, warm block cache, CPU ms): MaxScore
 * p50 1.26 / p99 12.7, every query flat 2.6 / 7.1, flat at ratio ≤ 8 (5 queries of 200: two or three
 * words each in 4–26% of the chunks) 1.26 / 5.4; ratios 8–15 choose about the same.
 */
export const FLAT_COST_RATIO = 8;
/**
 * Where a query's lists are some dense, the others (sparse) of at most this many postings in all (four times
 * as many for each dense list past the first), its top is taken by impacts (rankImpact: the sparse lists read
 * whole, then the dense ones by contribution); above, by MaxScore (the dense lists looked up). rankImpact's
 * cost is the sparse postings; MaxScore's, the postings of the lists that stay essential, dense ones among
 * them while the k-th score is below their bound. Measured in process on search-speed's 1M store (3-word
 * queries with dense and other lists, top 10, preloaded cache, median of 9, mean ms MaxScore → impacts):
 * one dense list, other postings < 16k 0.93 → 0.34, 16–32k 1.21 → 1.51, 32–64k 1.42 → 1.99, ≥ 64k 1.69 →
 * 3.61 (max 8.71); two dense lists, < 16k 1.50 → 0.64, 16–32k 2.92 → 1.41, 32–64k 3.67 → 1.65.
 */
export const IMPACT_SPARSE_MAX_POSTINGS = 16_384;
/** The flat scorer's id range, at most this many times its postings (else ids are too sparse for an array). */
const FLAT_RANGE_PER_POSTING = 8;

/**
 * One store's exact BM25 top `limit` for weighted terms, by the ranker that reads least for the query's
 * lists there (the same top from each): by impacts where common lists are kept dense (rank-impact.ts);
 * term at a time into a flat array where the lists are short (FLAT_MAX_POSTINGS: small stores, long
 * queries) or MaxScore could prune little (its essential list holds a large share of the query's
 * postings: FLAT_COST_RATIO) (rank-flat.ts); else by MaxScore (max-score.ts). Tombstoned chunks and
 * chunks outside the asked files never enter.
 */
export function rankStore(
  db: Database.Database,
  state: LexicalState,
  input: LexicalInput,
  s: StoreStats,
  weights: Map<string, number>,
  limit: number,
  allowed: ((id: number) => boolean) | null,
): Array<{ id: number; score: number }> {
  input = storeB(input, s);
  const dead = deadSet(db, state, s);
  const cacheBytes = input.blockCacheBytes ?? DEFAULT_BLOCK_CACHE_BYTES;
  const lists = queryLists(db, state, s, weights, cacheBytes);
  if (!lists.length) return [];
  let postings = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (const l of lists) {
    postings += l.df;
    lo = Math.min(lo, l.dir.first[0]);
    hi = Math.max(hi, l.dir.last[l.dir.size - 1]);
  }
  const fits = hi - lo < Math.max(65_536, postings * FLAT_RANGE_PER_POSTING);
  // a query of common words only, each kept dense: the top by impacts (rankImpact). With other words too, by
  // impacts where their lists are short (IMPACT_SPARSE_MAX_POSTINGS) or where it would go flat (rankImpact
  // reads the other lists whole, as rankFlat would: where MaxScore skips most of them, as for RM3's expanded
  // queries, it stays cheaper, and looks the dense lists up). Where a list worth it is
  // not dense yet (the preload makes them dense, largest first), a query that goes flat makes it dense once no
  // preload is under way (after a write, which gives the list a new generation).
  const denseMin = input.denseMinPostings ?? DENSE_MIN_POSTINGS;
  let worthy = false;
  if (fits && denseMin < Infinity && postings >= (hi - lo + 1) * DENSE_SHARE) {
    let all = true;
    let denses = 0;
    let sparse = 0;
    for (const l of lists)
      if (l.dir.dense) {
        worthy = true;
        denses++;
      } else {
        if (denseWorthy(l.dir, denseMin)) worthy = true;
        all = false;
        sparse += l.df;
      }
    if (
      all ||
      (denses > 0 && sparse <= (input.impactSparseMaxPostings ?? IMPACT_SPARSE_MAX_POSTINGS) * 4 ** (denses - 1))
    )
      return rankImpact(
        flatArrays(state, hi - lo + 1),
        input,
        s,
        lists,
        lists.map((l) => l.dir.dense ?? null),
        lo,
        limit,
        allowed,
        dead,
      );
  }
  const flat = (): Array<{ id: number; score: number }> => {
    // (while a preload is under way it makes them; a query makes one only once it is done or where none runs: a list changed since)
    if (worthy && (!state.preload || state.preload.phase === 'done')) {
      const denses = lists.map((l) => denseForm(state, l, cacheBytes, denseMin));
      if (denses.some((d) => d))
        return rankImpact(flatArrays(state, hi - lo + 1), input, s, lists, denses, lo, limit, allowed, dead);
    }
    return rankFlat(state, input, s, lists, lo, hi - lo + 1, limit, allowed, dead);
  };
  if (fits && postings <= (input.flatMaxPostings ?? FLAT_MAX_POSTINGS)) return flat();
  const ratio = input.flatCostRatio ?? FLAT_COST_RATIO;
  if (fits && ratio > 0) {
    // MaxScore reads at least the list of the largest bound whole
    let top = lists[0];
    let topUb = -1;
    for (const l of lists) {
      const ub = boundsOf(l, s.avgLength, input).ub;
      if (ub > topUb) {
        topUb = ub;
        top = l;
      }
    }
    if (postings <= ratio * top.df) return flat();
  }
  return rankMaxScore(input, s, lists, limit, allowed, dead);
}

/**
 * The query's BM25 b in a store: `b` moved to `multiChunkB` with the share of the store's chunks that
 * belong to files of several chunks, then to `codeB` with its share of code chunks.
 */
export function storeB(input: LexicalInput, s: StoreStats): LexicalInput {
  let b = input.b;
  if (input.multiChunkB !== undefined && s.multiShare > 0) b += (input.multiChunkB - b) * s.multiShare;
  if (input.codeB !== undefined && s.codeShare > 0) b += (input.codeB - b) * s.codeShare;
  return b === input.b ? input : { ...input, b };
}

/** A list's dense form: kept, or built now from its blocks (read where not kept); null where the list is not worth one. */
function denseForm(state: LexicalState, l: ListRef, cacheBytes: number, minPostings: number): DenseList | null {
  const dir = l.dir;
  if (dir.dense) return dir.dense;
  // (null: made once and not kept, or it could not be made: not again at this generation)
  if (dir.dense === null || !denseWorthy(dir, minPostings)) return null;
  const b = new DenseBuilder(dir);
  // (a few blocks a call: the step is optimised after a few calls, where one call for the whole list waited for on-stack replacement)
  while (!b.step((bi) => l.load(bi, MAX_RUN), 32));
  if (b.failed) {
    dir.dense = null;
    return null;
  }
  const dense = b.result();
  // (kept only where it fits the dense lists' share of the cache: else it is used for this query and dropped)
  keepDense(state, dir, dense, cacheBytes);
  return dense;
}

/** A store's tombstones (cached until its count or compaction changes). */
function deadSet(db: Database.Database, state: LexicalState, s: StoreStats): Set<number> | null {
  if (!s.dead) return null;
  const cache = (state.dead ??= new Map<number, { cgen: number; dead: number; ids: Set<number> }>());
  const c = cache.get(s.key);
  if (c && c.cgen === s.cgen && c.dead === s.dead) return c.ids;
  const ids = new Set(db.prepare(`SELECT id FROM lex_dead WHERE store_key = ?`).pluck().all(s.key) as number[]);
  if (cache.size > 64) cache.clear();
  cache.set(s.key, { cgen: s.cgen, dead: s.dead, ids });
  return ids;
}

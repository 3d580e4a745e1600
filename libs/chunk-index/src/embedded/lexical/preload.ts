import type Database from 'better-sqlite3';
import { DEFAULT_BLOCK_CACHE_BYTES, DENSE_CACHE_SHARE, keepDense, readRun } from './block-cache';
import { DenseBuilder, denseWorthy } from './dense-builder';
import { DENSE_MIN_POSTINGS } from './dense-list';
import { directory, readPart } from './directory-cache';
import type { StoreStats } from './input';
import { flatArrays } from './rank-flat';
import type { LexicalState } from './state';

/** What preloadLexical is asked: the cache's bound, its own share of it and how long a slice may run. */
export interface LexicalPreloadInput {
  /** the block cache's bound (as the queries' `blockCacheBytes`; default DEFAULT_BLOCK_CACHE_BYTES) */
  blockCacheBytes?: number;
  /** blocks preloaded while the cache holds less than this many bytes (capped at blockCacheBytes; default DEFAULT_PRELOAD_BYTES; 0: none) */
  preloadBytes?: number;
  /** a slice returns after about this many ms (default PRELOAD_SLICE_MS; it takes one step at least) */
  sliceMs?: number;
  /** lists of fewer postings are left to the queries (default PRELOAD_MIN_DF) */
  minPostings?: number;
  /** lists made dense once read (as the queries' `denseMinPostings`; default DENSE_MIN_POSTINGS) */
  denseMinPostings?: number;
}

/** The preload's default share of the block cache (LARDER_SEARCH_LEXICAL_PRELOAD_MB): half of its default bound. */
export const DEFAULT_PRELOAD_BYTES = 128 * 1024 * 1024;
/** How long one preload slice runs before it yields to the queries (ms). */
export const PRELOAD_SLICE_MS = 4;
/** Lists shorter than this are not preloaded (a query reads one in a statement or two). */
export const PRELOAD_MIN_DF = 1024;
/** Blocks a preload step decodes while it makes a list dense (~2 ms at 1M chunks). */
const DENSE_PRELOAD_BLOCKS = 256;
/** lex_terms rows read a statement while the preload chooses its lists. */
const PRELOAD_SCAN_ROWS = 8192;
/** Blocks (entries and data) read a step while the preload reads a list (~1 ms at 1M chunks). */
const PRELOAD_RUN = 1024;
/** Bytes a posting, about, while choosing lists for the preload's share (the share itself is counted exactly). */
const PRELOAD_BYTES_PER_POSTING = 4;

/**
 * Fills the block cache from the largest lists down (the lists of the most common terms, which a query
 * reads whole or nearly, and whose first reading from SQLite is what makes a query slow), as queries
 * would read them, while the cache holds less than `preloadBytes`: never more, and never dropping a
 * block a query read. Runs in slices of about `sliceMs`, each in a read transaction of its own, and
 * returns whether there is more to do (the read worker runs the next slice when no query waits). A slice
 * also ends after any step (~1–2 ms) once `shouldYield` says a query has come (the read worker's check). A list
 * changed between slices is read at its new generation, as a query would; answers never depend on what
 * is cached.
 */
export function preloadLexical(
  db: Database.Database,
  input: LexicalPreloadInput,
  state: LexicalState,
  shouldYield: () => boolean = () => false,
): boolean {
  const cacheBytes = input.blockCacheBytes ?? DEFAULT_BLOCK_CACHE_BYTES;
  const budget = Math.min(cacheBytes, input.preloadBytes ?? DEFAULT_PRELOAD_BYTES);
  const p = (state.preload ??= {
    phase: 'scan',
    after: null,
    lists: [],
    next: 0,
    block: 0,
    parts: [],
    gen: 0,
    cgen: 0,
    stats: { lists: 0, bytes: 0, ms: 0 },
  });
  if (p.phase === 'done' || budget <= 0) return false;
  // the flat scorer's arrays for every id of the file, before a query needs them (flatArrays)
  if (p.phase === 'scan' && !p.after)
    flatArrays(state, ((db.prepare(`SELECT max(id) FROM chunks`).pluck().get() as number | null) ?? 0) + 1);
  const t0 = performance.now();
  const until = t0 + (input.sliceMs ?? PRELOAD_SLICE_MS);
  const st = (state.statements ??= {});
  try {
    if (p.phase === 'scan') {
      const first = (st.preloadFirst ??= db
        .prepare(`SELECT store_key, term, df FROM lex_terms WHERE df >= ? ORDER BY store_key, term LIMIT ?`)
        .raw());
      const after = (st.preloadAfter ??= db
        .prepare(
          `SELECT store_key, term, df FROM lex_terms WHERE (store_key, term) > (?, ?) AND df >= ? ORDER BY store_key, term LIMIT ?`,
        )
        .raw());
      const minDf = Math.max(1, input.minPostings ?? PRELOAD_MIN_DF);
      // the largest lists whose postings (about) fill the share: a min-heap by df
      const heap = p.lists;
      let total = 0;
      for (const l of heap) total += l.df * PRELOAD_BYTES_PER_POSTING;
      do {
        const rows = (
          p.after ? after.all(p.after[0], p.after[1], minDf, PRELOAD_SCAN_ROWS) : first.all(minDf, PRELOAD_SCAN_ROWS)
        ) as Array<[number, string, number]>;
        for (const [key, term, df] of rows) {
          heapPush(heap, { key, term, df });
          total += df * PRELOAD_BYTES_PER_POSTING;
          while (heap.length > 1 && total - heap[0].df * PRELOAD_BYTES_PER_POSTING >= budget)
            total -= heapPop(heap).df * PRELOAD_BYTES_PER_POSTING;
        }
        if (rows.length < PRELOAD_SCAN_ROWS) {
          p.phase = 'load';
          heap.sort((a, b) => b.df - a.df || a.key - b.key || (a.term < b.term ? -1 : 1));
          // (the loading's first step in the next slice where a query waits)
          if (shouldYield()) return true;
          break;
        }
        const last = rows[rows.length - 1];
        p.after = [last[0], last[1]];
      } while (performance.now() < until && !shouldYield());
    }
    if (p.phase === 'load') {
      const termStmt = (st.term ??= db.prepare(`SELECT df, gen FROM lex_terms WHERE store_key = ? AND term = ?`));
      const storeStmt = (st.preloadStore ??= db.prepare(
        `SELECT store_key AS key, cgen FROM lex_stores WHERE store_key = ?`,
      ));
      const denseMin = input.denseMinPostings ?? DENSE_MIN_POSTINGS;
      // a list read whole (by the preload or a query) is made dense where worth it, DENSE_PRELOAD_BLOCKS blocks a step
      const makeDense = (key: number, term: string) => {
        const dir = state.dirs?.get(`${key}\u0000${term}`);
        if (dir && dir.dense === undefined && denseWorthy(dir, denseMin))
          p.dense = { key: `${key}\u0000${term}`, builder: new DenseBuilder(dir) };
      };
      // at least one step a slice, however short
      for (let steps = 0; steps === 0 || (performance.now() < until && !shouldYield()); steps++) {
        if (p.dense) {
          const { key, builder } = p.dense;
          const dir = builder.dir;
          // (given up where the list changed, a query made it dense or its blocks left the cache since)
          if (
            state.dirs?.get(key) !== dir ||
            dir.dense !== undefined ||
            (builder.step((bi) => dir.data.get(bi) ?? null, DENSE_PRELOAD_BLOCKS) && builder.failed)
          )
            p.dense = null;
          else if (builder.done) {
            const dense = builder.result();
            // within the cache's bound, dropping nothing
            if (
              (state.blockBytes ?? 0) + (state.denseBytes ?? 0) + dense.bytes <= cacheBytes &&
              (state.denseBytes ?? 0) + dense.bytes <= cacheBytes * DENSE_CACHE_SHARE
            ) {
              keepDense(state, dir, dense, cacheBytes);
              p.stats.dense = (p.stats.dense ?? 0) + 1;
            }
            p.dense = null;
          }
          continue;
        }
        if (p.next >= p.lists.length || (state.blockBytes ?? 0) >= budget) {
          p.phase = 'done';
          break;
        }
        const l = p.lists[p.next];
        const r = termStmt.get(l.key, l.term) as { df: number; gen: number } | undefined;
        const s = storeStmt.get(l.key) as { key: number; cgen: number } | undefined;
        const stats: StoreStats = {
          storeId: '',
          key: l.key,
          n: 0,
          avgLength: 1,
          codeShare: 0,
          multiShare: 0,
          dead: 0,
          cgen: s?.cgen ?? 0,
        };
        const cached = state.dirs?.get(`${l.key}\u0000${l.term}`);
        if (!r || !s || (cached && cached.gen === r.gen && cached.cgen === s.cgen)) {
          // gone, or a query read its directory since: its blocks not cached yet, a run a step
          if (r && s && cached) {
            while (p.block < cached.size && cached.data.has(p.block)) p.block++;
            if (p.block < cached.size) {
              const before = state.blockBytes ?? 0;
              readRun(db, state, l.key, l.term, cached, p.block, p.block + PRELOAD_RUN, cacheBytes);
              p.stats.bytes += (state.blockBytes ?? 0) - before;
              p.block += PRELOAD_RUN;
              continue;
            }
          }
          if (r && s) makeDense(l.key, l.term);
          p.next++;
          p.block = 0;
          p.parts = [];
          continue;
        }
        // the list's directory and data, PRELOAD_RUN blocks a step; kept once whole, if it has not changed since its first step
        if (p.parts.length && (p.gen !== r.gen || p.cgen !== s.cgen)) p.parts = [];
        if (!p.parts.length) {
          p.gen = r.gen;
          p.cgen = s.cgen;
          p.block = 0;
        }
        const part = readPart(db, state, l.key, l.term, p.block, p.block + PRELOAD_RUN);
        p.parts.push(part);
        p.block += PRELOAD_RUN;
        if (part.block.length === PRELOAD_RUN) continue;
        const before = state.blockBytes ?? 0;
        const { full } = directory(db, state, stats, l.term, r.gen, cacheBytes, p.parts, budget);
        if (!full) makeDense(l.key, l.term);
        p.stats.lists++;
        p.stats.bytes += (state.blockBytes ?? 0) - before;
        p.next++;
        p.block = 0;
        p.parts = [];
        if (full) {
          p.phase = 'done';
          break;
        }
      }
    }
  } finally {
    p.stats.ms += performance.now() - t0;
  }
  return p.phase !== 'done';
}

/** A min-heap of lists by df (the preload's choice). */
function heapPush(h: Array<{ df: number }>, x: { key: number; term: string; df: number }): void {
  h.push(x);
  for (let i = h.length - 1; i > 0;) {
    const q = (i - 1) >>> 1;
    if (h[q].df <= h[i].df) break;
    [h[q], h[i]] = [h[i], h[q]];
    i = q;
  }
}

function heapPop<T extends { df: number }>(h: T[]): T {
  const top = h[0];
  const last = h.pop()!;
  if (h.length) {
    h[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l].df < h[m].df) m = l;
      if (r < h.length && h[r].df < h[m].df) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }
  return top;
}

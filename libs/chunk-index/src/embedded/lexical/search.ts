import type Database from 'better-sqlite3';
import { analyzeChunk, EXACT, headingContextOf, queryTerms, stemOf, STOP_WORDS } from './analyzer';
import { Bm25Params, idf, tfNorm } from './bm25';

export interface LexicalInput extends Bm25Params {
  text: string;
  /** the columns of a hit (`c`: chunks, `f`: files) */
  columns: string;
  storeIds: string[];
  /** only chunks of these files (null: any) / none of these */
  includeFiles?: string[] | null;
  excludeFiles?: string[] | null;
  /** rows wanted (before any metadata filter, which the caller applies) */
  limit: number;
  /** drop English stop words from the query (kept when the query has nothing else) */
  stopWords: boolean;
  /** weight of a query word's exact (unstemmed) form, beside its stem's 1 (0: none) */
  exactBonus: number;
  /** RM3 pseudo-relevance feedback: expansion terms from the `docs` best chunks of a first pass, `terms` of them, the original query weighted `originalWeight` */
  feedback?: { docs: number; terms: number; originalWeight: number } | null;
  /**
   * A store's lists are scored term at a time into a flat array (every posting read) when the query's
   * postings there (Σ df over its terms) are at most this many; above, by MaxScore (default
   * FLAT_MAX_POSTINGS). Either way the top is the same, scores summed in the query's term order.
   */
  flatMaxPostings?: number;
  /** Compressed blocks kept between queries, at most this many bytes (default DEFAULT_BLOCK_CACHE_BYTES). */
  blockCacheBytes?: number;
  /**
   * Above flatMaxPostings, the flat scorer still when the query's postings are at most this many times
   * the postings of the list MaxScore must read whole (the one of the largest bound); 0: never
   * (default FLAT_COST_RATIO).
   */
  flatCostRatio?: number;
  /**
   * Lists of at least this many postings that fill at least 1/DENSE_RANGE_PER_POSTING of their id range
   * are kept decoded by id (DenseList) and the query's top taken by impacts (rankImpact); Infinity: never
   * (default DENSE_MIN_POSTINGS).
   */
  denseMinPostings?: number;
  /**
   * A query with dense lists and other lists of at most this many postings in all (×4 for each dense list
   * past the first) is taken by impacts too (rankImpact reads the other lists whole first); above, by
   * MaxScore, which looks the dense lists up (default IMPACT_SPARSE_MAX_POSTINGS).
   */
  impactSparseMaxPostings?: number;
}

/** What the program keeps between calls where it runs: bounded caches of directories, blocks and tombstones. */
export interface LexicalState {
  dirs?: Map<string, Directory>;
  dirEntries?: number;
  /** blocks' data in the order they were read, a part (one read's blocks, BlockData) an entry: the directory and the part's slot there; the oldest at `blockHead` */
  blockQueue?: Array<[Directory, number] | null>;
  blockHead?: number;
  blockBytes?: number;
  /** bytes of the lists' dense forms kept (Directory.dense; with blockBytes within blockCacheBytes, and at most DENSE_CACHE_SHARE of it), oldest first in denseQueue */
  denseBytes?: number;
  denseQueue?: Directory[];
  dead?: Map<number, { cgen: number; dead: number; ids: Set<number> }>;
  statements?: Record<string, Database.Statement>;
  /** the flat scorer's accumulators, by chunk id less the lists' smallest (zero between queries) */
  flat?: { acc: Float64Array; seen: Uint8Array; memo: Float64Array; memoOf: Uint32Array; lists: number; spanMax: Float64Array };
  /** a preload's progress (preloadLexical) */
  preload?: PreloadState;
}

/** A list's block directory, as read (cached by the term's generation). */
interface Directory {
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

const MAX_DIR_ENTRIES = 2_000_000;
/** Blocks' data kept (compressed, about 4 bytes a posting: some 16 million postings). */
/**
 * Blocks' data kept between queries by default (compressed, about 4 bytes a posting: some 64 million
 * postings; `blockCacheBytes`). The 1M-chunk store of search-speed holds 153 MB of postings: with 64 MiB
 * its two-to-three-word queries kept re-reading the common lists from SQLite (the server's lexical step
 * 10.7 ms at p50 against 7.2 with 256 MiB). Filled only as queries read blocks.
 */
export const DEFAULT_BLOCK_CACHE_BYTES = 256 * 1024 * 1024;
/** The most blocks one statement reads ahead of a list read in order. */
const MAX_RUN = 64;
/** Bounds are inflated by this much before they prune, so rounding never prunes a chunk that belongs in the top. */
const EPS = 1e-9;
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
/** Result rows fetched with `IN (?, …)` (placeholders padded to a power of two, statements cached) up to this many. */
const MAX_ROW_PLACEHOLDERS = 1024;

interface StoreStats {
  storeId: string;
  key: number;
  n: number;
  avgLength: number;
  dead: number;
  cgen: number;
}

/**
 * Lexical retrieval on Larder's own index (writer.ts): exact BM25 top-k per store with that store's
 * statistics, by MaxScore with block-max bounds, then the stores' tops merged. Runs in the read worker
 * (loaded by path) or on the index's own connection.
 *
 * Terms are ordered by their list's largest block bound; those whose bounds together cannot lift a
 * chunk above the current k-th score are non-essential: candidates come from the other lists only, and
 * a non-essential list is probed (skipping whole blocks by their directory) only while the candidate
 * could still enter. Before scoring a candidate, the bounds of the blocks holding it in every list are
 * summed; when they cannot enter, every candidate up to the nearest block boundary is skipped undecoded.
 * Tombstoned chunks and chunks outside the asked files never enter. Where the query's lists in a store
 * are short (FLAT_MAX_POSTINGS: small stores, long queries), or MaxScore could prune little (its
 * essential list holds a large share of the query's postings: FLAT_COST_RATIO), every posting is read
 * instead, term at a time into a flat array (rankFlat): the same top, cheaper where nearly every chunk
 * is a candidate.
 *
 * With `feedback` (RM3), the `docs` best chunks of a first pass give a relevance model (Σ over them of
 * p(term | chunk) × the chunk's share of their scores; stop words, numbers and terms in more than a
 * tenth of the asked chunks left out); its `terms` best terms are interpolated with the query's
 * (weighted `originalWeight`) and the weighted query ranks again.
 */
export function lexicalProgram(db: Database.Database, input: LexicalInput, state: LexicalState): Array<Record<string, unknown>> {
  const st = (state.statements ??= {});
  const stmt = (name: string, sql: string) => (st[name] ??= db.prepare(sql));
  const stores: StoreStats[] = [];
  for (const storeId of input.storeIds) {
    const r = stmt('store', `SELECT store_key, n, total_length, dead, cgen FROM lex_stores WHERE store_id = ?`).get(storeId) as
      { store_key: number; n: number; total_length: number; dead: number; cgen: number } | undefined;
    if (r && r.n > 0) stores.push({ storeId, key: r.store_key, n: r.n, avgLength: Math.max(r.total_length / r.n, 1e-9), dead: r.dead, cgen: r.cgen });
  }
  if (!stores.length) return [];
  const query = queryTerms(input.text, { stopWords: input.stopWords, exactBonus: input.exactBonus });
  if (!query.size) return [];
  const allowed = new Map<number, ((id: number) => boolean) | null>();
  for (const s of stores) allowed.set(s.key, filePredicate(db, input, s.storeId));

  const rank = (weights: Map<string, number>, limit: number) => {
    const tops: Array<{ id: number; score: number }> = [];
    for (const s of stores) tops.push(...rankStore(db, state, input, s, weights, limit, allowed.get(s.key)!));
    tops.sort((a, b) => b.score - a.score || a.id - b.id);
    return tops.slice(0, limit);
  };
  const rows = (top: Array<{ id: number; score: number }>) => {
    if (!top.length) return [];
    const score = new Map(top.map((t) => [t.id, t.score]));
    const out: Array<Record<string, unknown>> = [];
    const ids = top.map((t) => t.id);
    const sql = (where: string) => `SELECT ${input.columns} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE ${where}`;
    out.push(...(byIds(ids, (slots, where) => stmt(`rows:${input.columns}:${slots}`, sql(where))) as Array<Record<string, unknown>>));
    for (const r of out) r.score = score.get(r.id as number);
    return out.sort((a, b) => (b.score as number) - (a.score as number) || (a.id as number) - (b.id as number));
  };

  const fb = input.feedback;
  if (!fb || fb.docs <= 0 || fb.terms <= 0) return rows(rank(query, input.limit));
  const first = rank(query, fb.docs);
  const total = first.reduce((s, r) => s + r.score, 0);
  if (!first.length || !(total > 0)) return rows(rank(query, input.limit));
  const texts = new Map(
    (
      byIds(
        first.map((r) => r.id),
        (slots, where) => stmt(`texts:${slots}`, `SELECT c.id, c.text, c.generated_metadata FROM chunks c WHERE ${where}`),
      ) as Array<{
        id: number;
        text: string;
        generated_metadata: string | null;
      }>
    ).map((r) => [r.id, r]),
  );
  const model = new Map<string, number>();
  for (const r of first) {
    const row = texts.get(r.id);
    if (!row) continue;
    const a = analyzeChunk(row.text, headingContextOf(row.generated_metadata ? JSON.parse(row.generated_metadata) : null));
    if (!a.length) continue;
    const share = r.score / total / a.length;
    for (const [t, tf] of a.terms) {
      if (t.startsWith(EXACT) || t.length < 2 || t.length > 20 || STOP_WORDS.has(t) || /^\d+$/.test(t)) continue;
      model.set(t, (model.get(t) ?? 0) + share * (tf.body + tf.heading));
    }
  }
  const n = stores.reduce((x, s) => x + s.n, 0);
  const dfOf = (t: string) => stores.reduce((x, s) => x + ((stmt('term', `SELECT df, gen FROM lex_terms WHERE store_key = ? AND term = ?`).get(s.key, t) as { df: number } | undefined)?.df ?? 0), 0);
  const expansion: Array<[string, number]> = [];
  for (const [t, p] of [...model.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (expansion.length >= fb.terms) break;
    if (dfOf(t) > n * 0.1) continue;
    expansion.push([t, p]);
  }
  if (!expansion.length) return rows(rank(query, input.limit));
  const stems = [...query.entries()].filter(([t]) => !t.startsWith(EXACT));
  const qTotal = stems.reduce((x, [, w]) => x + w, 0);
  const eTotal = expansion.reduce((x, [, p]) => x + p, 0);
  const weight = new Map<string, number>();
  for (const [t, w] of stems) weight.set(t, (fb.originalWeight * w) / qTotal);
  for (const [t, p] of expansion) weight.set(t, (weight.get(t) ?? 0) + ((1 - fb.originalWeight) * p) / eTotal);
  const max = Math.max(...weight.values());
  for (const [t, w] of weight) weight.set(t, w / max);
  // an exact form keeps its weight relative to its stem's
  for (const [t, w] of query) {
    if (!t.startsWith(EXACT)) continue;
    const s = stemOf(t.slice(EXACT.length));
    weight.set(t, ((weight.get(s) ?? 0) * w) / query.get(s)!);
  }
  return rows(rank(weight, input.limit));
}

/**
 * Rows of chunks `c` by id: `IN (?, …)` with the placeholders padded (NULL) to a power of two, so a few
 * cached statements serve every count; past MAX_ROW_PLACEHOLDERS ids, one JSON array.
 */
function byIds(ids: number[], stmt: (slots: number, where: string) => Database.Statement): unknown[] {
  if (ids.length > MAX_ROW_PLACEHOLDERS) return stmt(0, `c.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
  let slots = 8;
  while (slots < ids.length) slots *= 2;
  const args: Array<number | null> = ids.slice();
  while (args.length < slots) args.push(null);
  return stmt(slots, `c.id IN (${'?,'.repeat(slots - 1)}?)`).all(...args);
}

/** The chunks of a store the query may answer (asked files, not excluded ones); null: all. */
function filePredicate(db: Database.Database, input: LexicalInput, storeId: string): ((id: number) => boolean) | null {
  const idsOf = (files: string[]) => {
    const out = new Set<number>();
    for (let i = 0; i < files.length; i += 500) {
      const part = files.slice(i, i + 500);
      for (const id of db
        .prepare(`SELECT id FROM chunks WHERE store_id = ? AND file_id IN (${part.map(() => '?').join(',')})`)
        .pluck()
        .all(storeId, ...part) as number[])
        out.add(id);
    }
    return out;
  };
  const include = input.includeFiles ? idsOf(input.includeFiles) : null;
  const exclude = input.excludeFiles?.length ? idsOf(input.excludeFiles) : null;
  if (!include && !exclude) return null;
  return (id) => (!include || include.has(id)) && (!exclude || !exclude.has(id));
}

/** One store's exact BM25 top `limit` for weighted terms. */
function rankStore(
  db: Database.Database,
  state: LexicalState,
  input: LexicalInput,
  s: StoreStats,
  weights: Map<string, number>,
  limit: number,
  allowed: ((id: number) => boolean) | null,
): Array<{ id: number; score: number }> {
  const st = (state.statements ??= {});
  const termStmt = (st.term ??= db.prepare(`SELECT df, gen FROM lex_terms WHERE store_key = ? AND term = ?`));
  const dead = deadSet(db, state, s);
  const cacheBytes = input.blockCacheBytes ?? DEFAULT_BLOCK_CACHE_BYTES;
  // the query's lists in its term order
  const lists: ListRef[] = [];
  for (const [term, w] of weights) {
    if (!(w > 0)) continue;
    const r = termStmt.get(s.key, term) as { df: number; gen: number } | undefined;
    if (!r || r.df <= 0) continue;
    const { dir } = directory(db, state, s, term, r.gen, cacheBytes);
    if (!dir.size) continue;
    const scale = w * idf(s.n, r.df);
    // a block's data: kept between queries (bounded), read in runs of blocks while the list is read in order
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
    if (all || (denses > 0 && sparse <= (input.impactSparseMaxPostings ?? IMPACT_SPARSE_MAX_POSTINGS) * 4 ** (denses - 1)))
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
      if (denses.some((d) => d)) return rankImpact(flatArrays(state, hi - lo + 1), input, s, lists, denses, lo, limit, allowed, dead);
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
  const cursors = lists.map((l, i) => new Cursor(l.dir, l.scale, boundsOf(l, s.avgLength, input), s.avgLength, input, l.load, i));
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
      theta = heap.minScore();
      updateNe();
    }
  }
  return heap.sorted();
}

/** A list's bounds: per block, an upper bound of the term's weighted score in it, and their largest. */
interface Bounds {
  blockUb: Float64Array;
  ub: number;
}

/** A list's block bounds, computed once per query (by the scorer choice, then MaxScore's cursor). */
function boundsOf(l: ListRef, avgLength: number, p: Bm25Params): Bounds {
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
interface ListRef {
  dir: Directory;
  scale: number;
  /** a block's data (read with at least `ahead` blocks from it where not kept) */
  load: (bi: number, ahead?: number) => Uint8Array;
  df: number;
  /** its block bounds, once computed (boundsOf) */
  bounds?: Bounds;
}

/** Contributions cached by (body count, length) for postings with no heading count: BODY_SLOTS × LENGTH_SLOTS of them. */
const BODY_SLOTS = 16;
const LENGTH_SLOTS = 1024;
/**
 * Where the query's postings are at least this share of the id range, the flat scorer keeps no list of
 * the chunks it touched (pushing 200k ids costs more than zeroing the array) but each span's best sum,
 * and takes its top from the spans best first.
 */
const DENSE_SHARE = 1 / 16;
/** The dense flat scorer keeps each span of 2^SPAN_SHIFT ids' best sum, and reads the spans for its top best first. */
const SPAN_SHIFT = 8;

/**
 * The flat scorer's arrays, for ranges of ids up to `range` (allocated, or grown, with a quarter more:
 * a later query of a slightly wider range does not allocate again. The preload allocates them before
 * any query needs them, for every id of the file.) Their pages are written once as they are allocated
 * (`fill`): a new typed array's memory is mapped on first touch, page by page, and a query that touched
 * its ids' pages first paid a fault for each. At 1M (a 10 MB `acc`), the first query after the preload
 * to add a 4,112-posting list into pages no query had written took 20–34 ms instead of 0.1–0.5, one
 * fault for about every other posting; writing the 11 MB in order takes ~4 ms, once.
 */
export function flatArrays(state: LexicalState, range: number): NonNullable<LexicalState['flat']> {
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
function rankFlat(
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
  const { acc, seen, memo, memoOf, spanMax } = flat;
  const spans = (range >>> SPAN_SHIFT) + 1;
  let postings = 0;
  for (const l of lists) postings += l.df;
  const dense = postings >= range * DENSE_SHARE;
  const touched: number[] = [];
  const avgLength = s.avgLength;
  try {
    for (const { dir, scale, load } of lists) {
      // memo[body × LENGTH_SLOTS + length]: this list's contribution where memoOf holds the list's number (nothing to clear)
      if (++flat.lists > 0xfffffff0) {
        flat.lists = 1;
        memoOf.fill(0);
      }
      const list = flat.lists;
      const add: AddBlock = { acc, memo, memoOf, list, scale, avgLength, p, dense, spanMax, seen, touched };
      for (let bi = 0; bi < dir.size; bi++) addBlock(add, load(bi, MAX_RUN), dir.count[bi], (dir.first[bi] - lo) | 0);
    }
    const heap = new TopK(limit);
    // below the k-th score a chunk cannot enter (a tie is the heap's to judge, by id)
    let min = -Infinity;
    const consider = (x: number) => {
      const v = acc[x];
      if (v < min) return;
      const id = x + lo;
      if ((allowed && !allowed(id)) || (dead && dead.has(id))) return;
      if (heap.push(id, v) && heap.full) min = heap.minScore();
    };
    if (dense) {
      // spans of ids by their best chunk, best first, until the k-th score is above a span's best
      const order: number[] = [];
      // (a span no posting reached keeps -1; a chunk's sum may be 0, as a heading-only match with heading weight 0)
      for (let j = 0; j < spans; j++) if (spanMax[j] >= 0) order.push(j);
      order.sort((a, b) => spanMax[b] - spanMax[a]);
      for (const j of order) {
        if (spanMax[j] < min) break;
        for (let x = j << SPAN_SHIFT, end = Math.min(range, (j + 1) << SPAN_SHIFT); x < end; x++) if (seen[x]) consider(x);
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

/** What addBlock adds a block's postings to (the flat scorer's arrays and the list's weights). */
interface AddBlock {
  acc: Float64Array;
  memo: Float64Array;
  memoOf: Uint32Array;
  list: number;
  scale: number;
  avgLength: number;
  p: Bm25Params;
  dense: boolean;
  spanMax: Float64Array;
  seen: Uint8Array;
  touched: number[];
}

/**
 * Adds a block's postings (the first chunk's id `id`, less the range's start) to the flat scorer's
 * sums. A function of its own, called per block: V8 optimises it after a few blocks of the first
 * query that needs it, where a loop inside rankFlat waited for on-stack replacement (a cold query
 * then ran a list of 200k postings unoptimised: 40 ms once instead of 3).
 */
function addBlock(a: AddBlock, data: Uint8Array, count: number, id: number): void {
  const { acc, memo, memoOf, list, scale, avgLength, p, dense, spanMax, seen, touched } = a;
  let q = 0;
  for (let i = 0; i < count; i++) {
    let byte = data[q++];
    let v = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[q++]) & 0x7f) * mul;
    id = (id + v) | 0;
    byte = data[q++];
    let body = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) body += ((byte = data[q++]) & 0x7f) * mul;
    byte = data[q++];
    let heading = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) heading += ((byte = data[q++]) & 0x7f) * mul;
    byte = data[q++];
    let length = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) length += ((byte = data[q++]) & 0x7f) * mul;
    let x: number;
    if (heading === 0 && body < BODY_SLOTS && length < LENGTH_SLOTS) {
      const slot = body * LENGTH_SLOTS + length;
      if (memoOf[slot] === list) x = memo[slot];
      else {
        x = memo[slot] = scale * tfNorm(body, heading, length, avgLength, p);
        memoOf[slot] = list;
      }
    } else x = scale * tfNorm(body, heading, length, avgLength, p);
    if (dense) seen[id] = 1;
    else if (!seen[id]) {
      seen[id] = 1;
      touched.push(id);
    }
    const sum = (acc[id] += x);
    if (dense && sum > spanMax[id >>> SPAN_SHIFT]) spanMax[id >>> SPAN_SHIFT] = sum;
  }
}

/**
 * A list decoded by chunk id, for the flat scorer: `pairs[id - first]` is 0 where the chunk is not in the
 * list, else 1 + the index of its (body count, heading count, length) among the list's distinct ones
 * (`body`, `heading`, `length`, index 0 unused). Scoring it is then a lookup per id in a table of the
 * list's contributions for this query (the same expression as a posting's, so the same double), added in
 * the query's term order as before: no varints read. Kept beside the list's blocks for lists of at least
 * DENSE_MIN_POSTINGS postings that fill at least 1/DENSE_RANGE_PER_POSTING of their id range (2 bytes an
 * id: at most 16 a posting, against ~4 compressed), within the block cache's bound.
 */
interface DenseList {
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
  order?: { avgLength: number; k1: number; b: number; headingWeight: number; norm: Float64Array; kinds: Int32Array | null };
}

/**
 * A dense list's kinds' tfNorm for a store's average length and parameters, kept on the list for the next
 * query of the same (a term's contribution to a chunk of kind k is its positive weight × idf × norm[k]).
 */
function kindNorms(d: DenseList, avgLength: number, p: Bm25Params): NonNullable<DenseList['order']> {
  const o = d.order;
  if (o && o.avgLength === avgLength && o.k1 === p.k1 && o.b === p.b && o.headingWeight === p.headingWeight) return o;
  const norm = new Float64Array(d.kinds);
  for (let k = 1; k < d.kinds; k++) norm[k] = tfNorm(d.body[k], d.heading[k], d.length[k], avgLength, p);
  return (d.order = { avgLength, k1: p.k1, b: p.b, headingWeight: p.headingWeight, norm, kinds: null });
}

/** A dense list's non-empty kinds by tfNorm, largest first, then by kind (as by contribution: every query orders them alike), kept with kindNorms. */
function kindOrder(d: DenseList, avgLength: number, p: Bm25Params): Int32Array {
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
/** The most distinct (body, heading, length) of a dense list (its ids are 16 bits, 0 for none). */
const DENSE_MAX_KINDS = 65_535;
/** A list's id range and postings. */
function listSpan(dir: Directory): { first: number; range: number; postings: number } {
  let postings = 0;
  for (let j = 0; j < dir.size; j++) postings += dir.count[j];
  const first = dir.size ? dir.first[0] : 0;
  return { first, range: dir.size ? dir.last[dir.size - 1] - first + 1 : 0, postings };
}

/** Whether a list is worth a dense form (DenseList): at least `minPostings` postings, at least 1/DENSE_RANGE_PER_POSTING of its id range. */
function denseWorthy(dir: Directory, minPostings: number): boolean {
  if (dir.dense === null) return false;
  const { range, postings } = listSpan(dir);
  return postings >= minPostings && range <= postings * DENSE_RANGE_PER_POSTING;
}

/** Heading counts below this (with body counts below BODY_SLOTS and lengths below LENGTH_SLOTS) find their kind in an array while a list is made dense. */
const KIND_HEADINGS = 4;

/**
 * Builds a list's dense form a few blocks a step (`step(blocks)`: true once whole; `load` gives a block's
 * data, null where it is not at hand: the build is then given up). The result is the list as its blocks
 * hold it, whatever the order of the steps.
 */
class DenseBuilder {
  private next = 0;
  private readonly first: number;
  private readonly pairs: Uint16Array;
  private readonly body: number[] = [0];
  private readonly heading: number[] = [0];
  private readonly length: number[] = [0];
  /** (body, heading, length) → kind: small ones by slot (0: none yet), the others by key */
  private readonly slots = new Int32Array(BODY_SLOTS * KIND_HEADINGS * LENGTH_SLOTS);
  private readonly other = new Map<string, number>();
  /** per kind, its chunks (then, once decoded, where its next one goes in byKind) */
  private readonly counts: number[] = [0];
  private start: Uint32Array | null = null;
  private byKind: Uint32Array | null = null;
  private at: Uint32Array | null = null;
  /** ids less `first` placed in byKind so far */
  private placed = 0;
  failed = false;

  constructor(readonly dir: Directory) {
    const { first, range } = listSpan(dir);
    this.first = first;
    this.pairs = new Uint16Array(range);
  }

  get done(): boolean {
    return this.next >= this.dir.size && this.placed >= this.pairs.length;
  }

  /**
   * Decodes up to `blocks` more blocks, or once all are, groups up to `blocks` × 1,024 ids by kind;
   * true once the list is whole (or the build failed: `failed`).
   */
  step(load: (bi: number) => Uint8Array | null, blocks: number): boolean {
    if (this.next >= this.dir.size) {
      this.group(blocks * 1024);
      return this.done;
    }
    const { dir, pairs, other, slots, counts } = this;
    for (const end = Math.min(dir.size, this.next + blocks); this.next < end; this.next++) {
      const data = load(this.next);
      if (!data) {
        this.failed = true;
        return true;
      }
      const count = dir.count[this.next];
      let id = dir.first[this.next] - this.first;
      let q = 0;
      for (let i = 0; i < count; i++) {
        let byte = data[q++];
        let v = byte & 0x7f;
        for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[q++]) & 0x7f) * mul;
        id += v;
        byte = data[q++];
        let body = byte & 0x7f;
        for (let mul = 128; byte >= 0x80; mul *= 128) body += ((byte = data[q++]) & 0x7f) * mul;
        byte = data[q++];
        let heading = byte & 0x7f;
        for (let mul = 128; byte >= 0x80; mul *= 128) heading += ((byte = data[q++]) & 0x7f) * mul;
        byte = data[q++];
        let length = byte & 0x7f;
        for (let mul = 128; byte >= 0x80; mul *= 128) length += ((byte = data[q++]) & 0x7f) * mul;
        let kind: number;
        if (body < BODY_SLOTS && heading < KIND_HEADINGS && length < LENGTH_SLOTS) {
          const slot = (body * KIND_HEADINGS + heading) * LENGTH_SLOTS + length;
          kind = slots[slot];
          if (kind === 0) kind = slots[slot] = this.newKind(body, heading, length);
        } else {
          const key = `${body},${heading},${length}`;
          const k = other.get(key);
          if (k !== undefined) kind = k;
          else other.set(key, (kind = this.newKind(body, heading, length)));
        }
        if (kind > DENSE_MAX_KINDS) {
          this.failed = true;
          return true;
        }
        pairs[id] = kind;
        counts[kind]++;
      }
    }
    return this.done;
  }

  /** A kind for a (body, heading, length) not met yet in this list, with no chunks so far. */
  private newKind(body: number, heading: number, length: number): number {
    this.body.push(body);
    this.heading.push(heading);
    this.length.push(length);
    this.counts.push(0);
    return this.body.length - 1;
  }

  /** Places up to `ids` more ids in byKind (each kind's in id order). */
  private group(ids: number): void {
    const pairs = this.pairs;
    if (!this.start) {
      const kinds = this.counts.length;
      const start = (this.start = new Uint32Array(kinds + 1));
      for (let k = 1; k < kinds; k++) start[k + 1] = start[k] + this.counts[k];
      this.byKind = new Uint32Array(start[kinds]);
      this.at = start.slice(0, kinds);
    }
    const byKind = this.byKind!;
    const at = this.at!;
    for (let x = this.placed, end = Math.min(pairs.length, this.placed + ids); x < end; x++) {
      const k = pairs[x];
      if (k) byKind[at[k]++] = x;
    }
    this.placed = Math.min(pairs.length, this.placed + ids);
  }

  /** The dense form, once whole (done). */
  result(): DenseList {
    const kinds = this.body.length;
    const pairs = this.pairs;
    const start = this.start!;
    const byKind = this.byKind!;
    return {
      first: this.first,
      pairs,
      body: Uint32Array.from(this.body),
      heading: Uint32Array.from(this.heading),
      length: Uint32Array.from(this.length),
      kinds,
      byKind,
      start,
      bytes: pairs.byteLength + byKind.byteLength + kinds * 16,
    };
  }
}

/** A directory's dense form let go (the directory replaced or dropped): its bytes no longer counted, its place in the queue freed. */
function releaseDense(state: LexicalState, dir: Directory): void {
  if (!dir.dense) return;
  state.denseBytes = (state.denseBytes ?? 0) - dir.dense.bytes;
  dir.dense = undefined;
  const queue = state.denseQueue;
  const at = queue ? queue.indexOf(dir) : -1;
  if (at >= 0) queue!.splice(at, 1);
}

/** Keeps a list's dense form in the cache (counted with the blocks, dropped with the oldest of them). */
function keepDense(state: LexicalState, dir: Directory, dense: DenseList, cacheBytes: number): void {
  const share = cacheBytes * DENSE_CACHE_SHARE;
  // larger than the share: used by the query that made it, and marked so that no later query makes it again (a new generation may)
  if (dense.bytes > share) {
    dir.dense = null;
    return;
  }
  const queue = (state.denseQueue ??= []);
  state.denseBytes ??= 0;
  // the oldest dense lists dropped for it (never by blocks read: a dense list costs a whole list's decoding to make again)
  while (state.denseBytes + dense.bytes > share && queue.length) {
    const old = queue.shift()!;
    if (old.dense) state.denseBytes -= old.dense.bytes;
    old.dense = undefined;
  }
  dir.dense = dense;
  state.denseBytes += dense.bytes;
  queue.push(dir);
  dropOldest(state, cacheBytes);
}

/** The share of the block cache's bound that dense lists may hold (blocks are dropped for them, not they for blocks). */
const DENSE_CACHE_SHARE = 1 / 2;

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
function rankImpact(
  flat: NonNullable<LexicalState['flat']>,
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
  const { memo, memoOf } = flat;
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
    // (memo[body × LENGTH_SLOTS + length]: this list's contribution where memoOf holds its number, as in rankFlat)
    if (++flat.lists > 0xfffffff0) {
      flat.lists = 1;
      memoOf.fill(0);
    }
    let postings = 0;
    for (let bi = 0; bi < dir.size; bi++) postings += dir.count[bi];
    const sparse: SparseList = { ids: new Int32Array(postings), xs: new Float64Array(postings), n: 0, memo, memoOf, list: flat.lists, scale, avgLength, p };
    for (let bi = 0; bi < dir.size; bi++) sparseBlock(sparse, load(bi, MAX_RUN), dir.count[bi], dir.first[bi]);
    tables.push(null);
    ids.push(sparse.ids.subarray(0, sparse.n));
    xs.push(sparse.xs);
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
interface Impact {
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
function offer(im: Impact, id: number, v: number): void {
  if (v < im.min) return;
  if ((im.allowed && !im.allowed(id)) || (im.dead && im.dead.has(id))) return;
  if (im.heap.push(id, v) && im.heap.full) im.min = im.heap.minScore();
}

/**
 * rankImpact's first pass: every chunk of its sparse lists (marked in `seen`, listed in `touched`), its sum
 * taken term at a time in `acc` (a sparse list's postings added, a dense list's contributions to those chunks
 * looked up), then offered (and `acc` left zero).
 */
function sparsePass(im: Impact, acc: Float64Array): void {
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
function mark(seen: Uint8Array, ids: Int32Array, lo: number, touched: Int32Array, n: number): number {
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
function addSparse(acc: Float64Array, ids: Int32Array, xs: Float64Array, lo: number): void {
  for (let i = 0; i < ids.length; i++) acc[ids[i] - lo] += xs[i];
}

/** Adds a dense list's contributions to the chunks `touched` (ids less lo) in `acc`. */
function addLookups(acc: Float64Array, touched: Int32Array, count: number, d: DenseList, table: Float64Array, lo: number): void {
  const { pairs, first } = d;
  const n = pairs.length;
  for (let i = 0; i < count; i++) {
    const x = touched[i];
    const y = x + lo - first;
    if (y >= 0 && y < n) acc[x] += table[pairs[y]];
  }
}

/** Reads kind `k` of dense list `best`: each of its chunks not met before (in a sparse list, or in a kind of another list read earlier) scored whole. */
function readKind(im: Impact, best: number, k: number): void {
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

/** A list's postings decoded for rankImpact: ids (less the range's start) and contributions. */
interface SparseList {
  ids: Int32Array;
  xs: Float64Array;
  n: number;
  memo: Float64Array;
  memoOf: Uint32Array;
  list: number;
  scale: number;
  avgLength: number;
  p: Bm25Params;
}

/** Decodes a block's postings (the first chunk's id `id`, less the range's start) with their contributions (as addBlock computes them). */
function sparseBlock(a: SparseList, data: Uint8Array, count: number, id: number): void {
  const { ids, xs, memo, memoOf, list, scale, avgLength, p } = a;
  let n = a.n;
  let q = 0;
  for (let i = 0; i < count; i++) {
    let byte = data[q++];
    let v = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[q++]) & 0x7f) * mul;
    id = (id + v) | 0;
    byte = data[q++];
    let body = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) body += ((byte = data[q++]) & 0x7f) * mul;
    byte = data[q++];
    let heading = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) heading += ((byte = data[q++]) & 0x7f) * mul;
    byte = data[q++];
    let length = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) length += ((byte = data[q++]) & 0x7f) * mul;
    let x: number;
    if (heading === 0 && body < BODY_SLOTS && length < LENGTH_SLOTS) {
      const slot = body * LENGTH_SLOTS + length;
      if (memoOf[slot] === list) x = memo[slot];
      else {
        x = memo[slot] = scale * tfNorm(body, heading, length, avgLength, p);
        memoOf[slot] = list;
      }
    } else x = scale * tfNorm(body, heading, length, avgLength, p);
    ids[n] = id;
    xs[n++] = x;
  }
  a.n = n;
}

/**
 * A list's cached blocks: each block's bytes are a range of a part (the Buffer one read gave: its blocks'
 * data end to end), found by the block's part slot, offset and length in typed arrays. A block's bytes are
 * handed out as a view made when asked (short-lived: garbage a young collection drops for nothing), not kept
 * as a view per block: at 1M chunks the cache held ~200,000 such views (and a queue entry each), which every
 * collection had to trace, and which each young collection during the preload copied out of the young
 * generation (measured in process at 1M, the preload and queries run as the read worker runs them:
 * mark-compact pauses of up to 17 ms, scavenges of up to 10 ms; after, 6.7 and 2.7). Parts are dropped
 * whole, oldest first (dropOldest).
 */
class BlockData {
  /** per block: its part's slot plus one (0: not cached), its offset there and its length (made with the first part: most directories never cache a block) */
  private part: Int32Array | null = null;
  private off: Int32Array | null = null;
  private len: Int32Array | null = null;
  /** per slot: the part's bytes and its blocks (undefined: dropped, the slot free) */
  private readonly bufs: Array<Buffer | undefined> = [];
  private readonly blocks: Array<Int32Array | undefined> = [];
  private readonly free: number[] = [];
  /** blocks cached */
  count = 0;

  constructor(private readonly size: number) {}

  has(block: number): boolean {
    return this.part !== null && this.part[block] > 0;
  }

  /** A block's bytes (a view made now), or undefined where it is not cached. */
  get(block: number): Uint8Array | undefined {
    const p = this.part === null ? 0 : this.part[block];
    if (p === 0) return undefined;
    const at = this.off![block];
    return this.bufs[p - 1]!.subarray(at, at + this.len![block]);
  }

  /** Keeps a part: `buf` holds `blocks` (none cached yet) end to end, each `lengths` long; answers its slot. */
  add(buf: Buffer, blocks: number[], lengths: number[]): number {
    const part = (this.part ??= new Int32Array(this.size));
    const off = (this.off ??= new Int32Array(this.size));
    const len = (this.len ??= new Int32Array(this.size));
    const slot = this.free.length ? this.free.pop()! : this.bufs.length;
    this.bufs[slot] = buf;
    this.blocks[slot] = Int32Array.from(blocks);
    for (let i = 0, at = 0; i < blocks.length; at += lengths[i++]) {
      const b = blocks[i];
      part[b] = slot + 1;
      off[b] = at;
      len[b] = lengths[i];
    }
    this.count += blocks.length;
    return slot;
  }

  /** Drops a part's blocks; answers their bytes. */
  drop(slot: number): number {
    const blocks = this.blocks[slot];
    const buf = this.bufs[slot];
    if (!blocks || !buf) return 0;
    for (let i = 0; i < blocks.length; i++) this.part![blocks[i]] = 0;
    this.count -= blocks.length;
    this.bufs[slot] = undefined;
    this.blocks[slot] = undefined;
    this.free.push(slot);
    return buf.length;
  }
}

/** Reads blocks [from, to) of a list into the cache (those not there; one statement: readPart's concatenated data); returns block `from`'s data. */
function readRun(db: Database.Database, state: LexicalState, key: number, term: string, dir: Directory, from: number, to: number, cacheBytes: number): Uint8Array {
  const st = (state.statements ??= {});
  const rangeStmt = (st.range ??= db
    .prepare(
      `SELECT json_group_array(block), json_group_array(length(data)), CAST(group_concat(data, '') AS BLOB)
       FROM (SELECT block, data FROM lex_blocks WHERE store_key = ? AND term = ? AND block >= ? AND block < ? ORDER BY block)`,
    )
    .raw());
  const [numbers, lengths, all] = rangeStmt.get(key, term, from, to) as [string, string, Buffer | null];
  const bs = JSON.parse(numbers) as number[];
  const ls = JSON.parse(lengths) as number[];
  // (taken before the cache drops its oldest: a run may be larger than the whole cache)
  const got = dir.data.get(from) ?? (bs[0] === from && all ? all.subarray(0, ls[0]) : undefined);
  cacheBlocks(state, dir, bs, ls, all, cacheBytes);
  if (!got) throw new Error(`lexical index: block ${from} of a list is missing`);
  return got;
}

/**
 * Keeps blocks read (`numbers`, their data end to end in `all`, each `lengths` long: one Buffer, a part of
 * `dir.data`; a row and a Buffer per block cost twice as much), those not there yet (where some are, the
 * others' bytes are copied into a part of their own, so that a part holds only what it counts), then
 * drops the oldest parts past `cacheBytes`. With `share` (the preload's), blocks are kept only while the
 * cache holds at most that many bytes (`full`: some were not).
 */
function cacheBlocks(
  state: LexicalState,
  dir: Directory,
  numbers: number[],
  lengths: number[],
  all: Buffer | null,
  cacheBytes: number,
  share = Infinity,
): { bytes: number; blocks: number; full: boolean } {
  state.blockHead ??= 0;
  state.blockBytes ??= 0;
  const queue = (state.blockQueue ??= []);
  let bytes = 0;
  let full = false;
  const keep: number[] = [];
  const keepLengths: number[] = [];
  const keepAt: number[] = [];
  if (all)
    for (let i = 0, at = 0; i < numbers.length; at += lengths[i++]) {
      const block = numbers[i];
      if (dir.data.has(block)) continue;
      if (state.blockBytes + bytes + lengths[i] > share) {
        full = true;
        break;
      }
      keep.push(block);
      keepLengths.push(lengths[i]);
      keepAt.push(at);
      bytes += lengths[i];
    }
  if (all && keep.length) {
    const whole = keep.length === numbers.length;
    // (a copy of its own, not a slice of Node's shared pool, which a small part would keep whole)
    let buf = all;
    if (!whole) {
      buf = Buffer.allocUnsafeSlow(bytes);
      for (let j = 0, to = 0; j < keep.length; to += keepLengths[j++]) all.copy(buf, to, keepAt[j], keepAt[j] + keepLengths[j]);
    }
    queue.push([dir, dir.data.add(buf, keep, keepLengths)]);
    state.blockBytes += bytes;
  }
  dropOldest(state, cacheBytes);
  return { bytes, blocks: keep.length, full };
}

/** Drops the oldest parts of blocks while the cache (blocks and dense lists) holds more than `cacheBytes`. */
function dropOldest(state: LexicalState, cacheBytes: number): void {
  const queue = (state.blockQueue ??= []);
  state.blockHead ??= 0;
  state.blockBytes ??= 0;
  state.denseBytes ??= 0;
  while (state.blockBytes + state.denseBytes > cacheBytes && state.blockHead < queue.length) {
    const [d0, slot] = queue[state.blockHead]!;
    queue[state.blockHead++] = null;
    state.blockBytes -= d0.data.drop(slot);
  }
  if (state.blockHead > 10_000 && state.blockHead * 2 > queue.length) {
    state.blockQueue = queue.slice(state.blockHead);
    state.blockHead = 0;
  }
}

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

/** Where a preload stands between its slices (LexicalState.preload). */
export interface PreloadState {
  /** 'scan': choosing lists (lex_terms read in key order from `after`); 'load': reading them, largest first */
  phase: 'scan' | 'load' | 'done';
  after: [number, string] | null;
  /** the lists chosen (largest df first once loading), `next` the one being read, `block` its next block */
  lists: Array<{ key: number; term: string; df: number }>;
  next: number;
  block: number;
  /** the list being read: its parts so far, at generation `gen` (compaction `cgen`) */
  parts: ListPart[];
  gen: number;
  cgen: number;
  /** the lists' directories, blocks and bytes read, and the lists made dense */
  stats: { lists: number; bytes: number; ms: number; dense?: number };
  /** a list being made dense (its directory's key in LexicalState.dirs) */
  dense?: { key: string; builder: DenseBuilder } | null;
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
export function preloadLexical(db: Database.Database, input: LexicalPreloadInput, state: LexicalState, shouldYield: () => boolean = () => false): boolean {
  const cacheBytes = input.blockCacheBytes ?? DEFAULT_BLOCK_CACHE_BYTES;
  const budget = Math.min(cacheBytes, input.preloadBytes ?? DEFAULT_PRELOAD_BYTES);
  const p = (state.preload ??= { phase: 'scan', after: null, lists: [], next: 0, block: 0, parts: [], gen: 0, cgen: 0, stats: { lists: 0, bytes: 0, ms: 0 } });
  if (p.phase === 'done' || budget <= 0) return false;
  // the flat scorer's arrays for every id of the file, before a query needs them (flatArrays)
  if (p.phase === 'scan' && !p.after) flatArrays(state, ((db.prepare(`SELECT max(id) FROM chunks`).pluck().get() as number | null) ?? 0) + 1);
  const t0 = performance.now();
  const until = t0 + (input.sliceMs ?? PRELOAD_SLICE_MS);
  const st = (state.statements ??= {});
  try {
    if (p.phase === 'scan') {
      const first = (st.preloadFirst ??= db.prepare(`SELECT store_key, term, df FROM lex_terms WHERE df >= ? ORDER BY store_key, term LIMIT ?`).raw());
      const after = (st.preloadAfter ??= db.prepare(`SELECT store_key, term, df FROM lex_terms WHERE (store_key, term) > (?, ?) AND df >= ? ORDER BY store_key, term LIMIT ?`).raw());
      const minDf = Math.max(1, input.minPostings ?? PRELOAD_MIN_DF);
      // the largest lists whose postings (about) fill the share: a min-heap by df
      const heap = p.lists;
      let total = 0;
      for (const l of heap) total += l.df * PRELOAD_BYTES_PER_POSTING;
      do {
        const rows = (p.after ? after.all(p.after[0], p.after[1], minDf, PRELOAD_SCAN_ROWS) : first.all(minDf, PRELOAD_SCAN_ROWS)) as Array<[number, string, number]>;
        for (const [key, term, df] of rows) {
          heapPush(heap, { key, term, df });
          total += df * PRELOAD_BYTES_PER_POSTING;
          while (heap.length > 1 && total - heap[0].df * PRELOAD_BYTES_PER_POSTING >= budget) total -= heapPop(heap).df * PRELOAD_BYTES_PER_POSTING;
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
      const storeStmt = (st.preloadStore ??= db.prepare(`SELECT store_key AS key, cgen FROM lex_stores WHERE store_key = ?`));
      const denseMin = input.denseMinPostings ?? DENSE_MIN_POSTINGS;
      // a list read whole (by the preload or a query) is made dense where worth it, DENSE_PRELOAD_BLOCKS blocks a step
      const makeDense = (key: number, term: string) => {
        const dir = state.dirs?.get(`${key}\u0000${term}`);
        if (dir && dir.dense === undefined && denseWorthy(dir, denseMin)) p.dense = { key: `${key}\u0000${term}`, builder: new DenseBuilder(dir) };
      };
      // at least one step a slice, however short
      for (let steps = 0; steps === 0 || (performance.now() < until && !shouldYield()); steps++) {
        if (p.dense) {
          const { key, builder } = p.dense;
          const dir = builder.dir;
          // (given up where the list changed, a query made it dense or its blocks left the cache since)
          if (state.dirs?.get(key) !== dir || dir.dense !== undefined || (builder.step((bi) => dir.data.get(bi) ?? null, DENSE_PRELOAD_BLOCKS) && builder.failed)) p.dense = null;
          else if (builder.done) {
            const dense = builder.result();
            // within the cache's bound, dropping nothing
            if ((state.blockBytes ?? 0) + (state.denseBytes ?? 0) + dense.bytes <= cacheBytes && (state.denseBytes ?? 0) + dense.bytes <= cacheBytes * DENSE_CACHE_SHARE) {
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
        const stats: StoreStats = { storeId: '', key: l.key, n: 0, avgLength: 1, dead: 0, cgen: s?.cgen ?? 0 };
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

/** Blocks of a list as one statement reads them: their directory entries and data (`all`, the blocks' data end to end; `length`, each one's). */
interface ListPart {
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

/**
 * Blocks [from, to) of a list, entries and data, in one statement and one row: a JSON array a column (parsing
 * them costs half of reading a row per block) and the data concatenated (group_concat keeps a blob's bytes;
 * cast back to one). Walking a list's rows is most of what reading its directory costs (a row holds its
 * block's data: ~4 µs a page of 7), so the data comes with it: a list's first reading walks its rows once, not
 * twice (at 1M chunks 7–8 ms of SQL each time for a query's three common lists).
 */
function readPart(db: Database.Database, state: LexicalState, key: number, term: string, from: number, to: number): ListPart {
  const st = (state.statements ??= {});
  const stmt = (st.part ??= db
    .prepare(
      `SELECT json_group_array(block), json_group_array(first), json_group_array(last), json_group_array(count), json_group_array(max_body), json_group_array(max_heading),
              json_group_array(min_length), json_group_array(length(data)), CAST(group_concat(data, '') AS BLOB)
       FROM (SELECT block, first, last, count, max_body, max_heading, min_length, data FROM lex_blocks WHERE store_key = ? AND term = ? AND block >= ? AND block < ? ORDER BY block)`,
    )
    .raw());
  const row = stmt.get(key, term, from, to) as [string, string, string, string, string, string, string, string, Buffer | null];
  const [block, first, last, count, maxBody, maxHeading, minLength, length] = row.slice(0, 8).map((x) => JSON.parse(x as string) as number[]);
  return { block, first, last, count, maxBody, maxHeading, minLength, length, all: row[8] };
}

/**
 * A list's directory: cached by (store, term); on a new generation only its tail is re-read (unless
 * compacted). The blocks' data read with it is cached too (within `cacheBytes`; with `share`, the
 * preload's, only while the cache holds less: `full` says some were left out). `parts`: the list as
 * the preload read it (whole, at generation `gen`).
 */
function directory(db: Database.Database, state: LexicalState, s: StoreStats, term: string, gen: number, cacheBytes: number, parts?: ListPart[], share = Infinity): { dir: Directory; full: boolean } {
  const dirs = (state.dirs ??= new Map<string, Directory>());
  const key = `${s.key}\u0000${term}`;
  const cached = dirs.get(key);
  if (!parts && cached && cached.gen === gen && cached.cgen === s.cgen) {
    dirs.delete(key);
    dirs.set(key, cached);
    return { dir: cached, full: false };
  }
  const from = !parts && cached && cached.cgen === s.cgen ? Math.max(0, cached.size - 1) : 0;
  parts ??= [readPart(db, state, s.key, term, from, 2 ** 31)];
  let size = from;
  for (const part of parts) size += part.block.length;
  const dir: Directory = {
    gen,
    cgen: s.cgen,
    first: new Float64Array(size),
    last: new Float64Array(size),
    count: new Uint32Array(size),
    maxBody: new Uint32Array(size),
    maxHeading: new Uint32Array(size),
    minLength: new Uint32Array(size),
    size,
    data: new BlockData(size),
  };
  if (from && cached) {
    dir.first.set(cached.first.subarray(0, from));
    dir.last.set(cached.last.subarray(0, from));
    dir.count.set(cached.count.subarray(0, from));
    dir.maxBody.set(cached.maxBody.subarray(0, from));
    dir.maxHeading.set(cached.maxHeading.subarray(0, from));
    dir.minLength.set(cached.minLength.subarray(0, from));
  }
  for (const { block, first, last, count, maxBody, maxHeading, minLength } of parts)
    for (let i = 0; i < block.length; i++) {
      const b = block[i];
      dir.first[b] = first[i];
      dir.last[b] = last[i];
      dir.count[b] = count[i];
      dir.maxBody[b] = maxBody[i];
      dir.maxHeading[b] = maxHeading[i];
      dir.minLength[b] = minLength[i];
    }
  if (cached) {
    state.dirEntries = (state.dirEntries ?? 0) - cached.size;
    releaseDense(state, cached);
  }
  dirs.delete(key);
  dirs.set(key, dir);
  state.dirEntries = (state.dirEntries ?? 0) + size;
  while ((state.dirEntries ?? 0) > MAX_DIR_ENTRIES && dirs.size > 1) {
    const [k0, d0] = dirs.entries().next().value as [string, Directory];
    dirs.delete(k0);
    state.dirEntries -= d0.size;
    releaseDense(state, d0);
  }
  let full = false;
  for (const part of parts) full = cacheBlocks(state, dir, part.block, part.length, part.all, cacheBytes, share).full || full;
  return { dir, full };
}

/**
 * A cursor over one list: a block index, the block (opened when first needed) and a place in it. A block's
 * postings are read in place, as far as the cursor goes: a chunk's id when the cursor moves onto it, its
 * counts only when it is scored.
 */
class Cursor {
  /** per block: an upper bound of the term's weighted score in it */
  readonly blockUb: Float64Array;
  /** the largest block bound */
  readonly ub: number;
  private bi = 0;
  /** the current block's data (null: not opened), its count, the current chunk's place in it and id */
  private data: Uint8Array | null = null;
  private count = 0;
  private index = 0;
  private id = 0;
  /** where the current chunk's counts start in `data` */
  private at = 0;
  /** the first id wanted in the block not yet opened */
  private target = 0;

  /** the list's dense form where it is kept (probed by lookup: lookup()) */
  readonly dense: DenseList | null;
  /** the dense form's kinds' tfNorm (kindNorms), once looked up */
  private norm: Float64Array | null = null;

  constructor(
    readonly dir: Directory,
    private readonly scale: number,
    bounds: Bounds,
    private readonly avgLength: number,
    private readonly p: Bm25Params,
    private readonly load: (bi: number) => Uint8Array,
    /** the term's place in the query */
    readonly order: number,
  ) {
    this.blockUb = bounds.blockUb;
    this.ub = bounds.ub;
    this.dense = dir.dense ?? null;
  }

  /** The term's weighted score in chunk d (0: not in the list), moving the cursor to d (its first chunk ≥ d). */
  scoreAt(d: number): number {
    this.advance(d);
    return this.doc() === d ? this.score() : 0;
  }

  /**
   * The term's weighted score in chunk d (0: not in the list) from the list's dense form, the cursor left
   * where it is (a non-essential list is never walked again; blockAt finds its blocks from there still).
   * The same double as score() gives: the same (body, heading, length) through the same tfNorm.
   */
  lookup(d: number): number {
    const dense = this.dense!;
    const x = d - dense.first;
    const k = x >= 0 && x < dense.pairs.length ? dense.pairs[x] : 0;
    if (k === 0) return 0;
    return this.scale * (this.norm ??= kindNorms(dense, this.avgLength, this.p).norm)[k];
  }

  /** Whether the current block is open (else lower() is only a bound). */
  get decoded(): boolean {
    return this.data !== null;
  }

  /** A lower bound of the current chunk id, opening nothing: the id itself once the block is open (Infinity: exhausted). */
  lower(): number {
    if (this.bi >= this.dir.size) return Infinity;
    if (this.data) return this.id;
    const f = this.dir.first[this.bi];
    return this.target > f ? this.target : f;
  }

  /** Reads the id of the chunk whose id gap starts at `p` (false: the block has no more). */
  private readId(p: number): boolean {
    if (this.index >= this.count) return false;
    const data = this.data!;
    let byte = data[p++];
    let v = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[p++]) & 0x7f) * mul;
    this.id += v;
    this.at = p;
    return true;
  }

  /** Moves to the block's next chunk (false: none). */
  private step(): boolean {
    // past the current chunk's three counts
    const data = this.data!;
    let p = this.at;
    while (data[p++] >= 0x80);
    while (data[p++] >= 0x80);
    while (data[p++] >= 0x80);
    this.index++;
    return this.readId(p);
  }

  /** Moves within the open block to its first chunk ≥ target (false: none in it). */
  private seek(target: number): boolean {
    while (this.id < target) if (!this.step()) return false;
    return true;
  }

  /** The current chunk id (Infinity: exhausted). */
  doc(): number {
    for (;;) {
      if (this.bi >= this.dir.size) return Infinity;
      if (this.data) return this.id;
      this.data = this.load(this.bi);
      this.count = this.dir.count[this.bi];
      this.index = 0;
      this.id = this.dir.first[this.bi];
      if (this.readId(0) && this.seek(this.target)) return this.id;
      // cannot happen (the block's last id ≥ target), kept for safety
      this.bi++;
      this.data = null;
    }
  }

  score(): number {
    const data = this.data!;
    let p = this.at;
    let byte = data[p++];
    let body = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) body += ((byte = data[p++]) & 0x7f) * mul;
    byte = data[p++];
    let heading = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) heading += ((byte = data[p++]) & 0x7f) * mul;
    byte = data[p++];
    let length = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) length += ((byte = data[p++]) & 0x7f) * mul;
    return this.scale * tfNorm(body, heading, length, this.avgLength, this.p);
  }

  next(): void {
    if (!this.data) this.doc();
    if (!this.data) return;
    if (!this.step()) {
      this.bi++;
      this.data = null;
      this.target = 0;
    }
  }

  /** The first block at or after the current one whose last id ≥ target (size: none). */
  blockAt(target: number): number {
    const last = this.dir.last;
    let lo = this.bi;
    let hi = this.dir.size;
    if (lo < hi && last[lo] >= target) return lo;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (last[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Moves to the first chunk ≥ target (opening nothing until doc() is asked). */
  advance(target: number): void {
    const j = this.blockAt(target);
    if (j !== this.bi) {
      this.bi = j;
      this.data = null;
      this.target = target;
      return;
    }
    if (!this.data) {
      if (target > this.target) this.target = target;
      return;
    }
    this.seek(target); // the block's last id ≥ target
  }
}

/** The k best (score desc, id asc) of a stream of chunks in increasing id order. */
class TopK {
  private readonly scores: number[] = [];
  private readonly ids: number[] = [];
  constructor(private readonly k: number) {}
  get full(): boolean {
    return this.scores.length >= this.k;
  }
  minScore(): number {
    return this.scores[0];
  }
  /** A min-heap on (score, -id): the root is the worst kept. */
  private worse(i: number, j: number): boolean {
    return this.scores[i] < this.scores[j] || (this.scores[i] === this.scores[j] && this.ids[i] > this.ids[j]);
  }
  private swap(i: number, j: number): void {
    [this.scores[i], this.scores[j]] = [this.scores[j], this.scores[i]];
    [this.ids[i], this.ids[j]] = [this.ids[j], this.ids[i]];
  }
  push(id: number, score: number): boolean {
    if (this.k <= 0) return false;
    if (this.full) {
      if (!(score > this.scores[0] || (score === this.scores[0] && id < this.ids[0]))) return false;
      this.scores[0] = score;
      this.ids[0] = id;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let w = i;
        if (l < this.scores.length && this.worse(l, w)) w = l;
        if (r < this.scores.length && this.worse(r, w)) w = r;
        if (w === i) break;
        this.swap(i, w);
        i = w;
      }
      return true;
    }
    this.scores.push(score);
    this.ids.push(id);
    let i = this.scores.length - 1;
    while (i > 0) {
      const p = (i - 1) >>> 1;
      if (!this.worse(i, p)) break;
      this.swap(i, p);
      i = p;
    }
    return true;
  }
  sorted(): Array<{ id: number; score: number }> {
    return this.ids.map((id, i) => ({ id, score: this.scores[i] })).sort((a, b) => b.score - a.score || a.id - b.id);
  }
}

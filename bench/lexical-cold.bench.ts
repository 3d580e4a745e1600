import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { DEFAULT_LEXICAL_OPTIONS } from '@larder/chunk-index/embedded/sqlite.options';
import type { LexicalInput } from '@larder/chunk-index/embedded/lexical/input';
import { preloadLexical } from '@larder/chunk-index/embedded/lexical/preload';
import { lexicalProgram } from '@larder/chunk-index/embedded/lexical/search';
import type { LexicalState } from '@larder/chunk-index/embedded/lexical/state';
import { benchQueries, corpus, pct } from './search-speed.bench';

/**
 * The embedded lexical engine called directly (no read worker, no HTTP) on the kept store of
 * search-speed (BENCH_SEARCH_DIR, filled by `search-speed` with BENCH_SEARCH_CHUNKS): where a query's
 * time goes when its lists are read for the first time and when they are cached.
 *
 * Passes (each on a connection and cache state of its own, as the read worker has):
 * - first: the search-speed bench's cold queries in order on a fresh state, the code cold too (this
 *   process's first queries): what the bench's cold row measures, less the worker's message round trip;
 * - cold lists: every measured query on a new connection and an empty state (its lists' directories and
 *   blocks read from SQLite; the OS page cache warm), the code warm;
 * - warm: the measured queries again and again on one state (per-query median of LEXICAL_BENCH_REPS);
 * - with LEXICAL_BENCH_PRELOAD=1, `first` again after preloadLexical filled the cache (and made the common
 *   lists dense), then `warm` on that state.
 * Then the slowest cold queries broken down: term rows, directory reads, block reads (SQL only), and
 * the same query with everything cached.
 */
export async function lexicalColdBench(): Promise<void> {
  const dir = process.env.BENCH_SEARCH_DIR;
  if (!dir || !existsSync(join(dir, 'bench-fill.json')))
    throw new Error('BENCH_SEARCH_DIR must hold a store filled by the search-speed bench');
  const { storeId, n } = JSON.parse(readFileSync(join(dir, 'bench-fill.json'), 'utf8')) as {
    storeId: string;
    n: number;
  };
  const path = join(dir, 'data', 'chunk-index', 'chunks.sqlite');
  const reps = Number(process.env.LEXICAL_BENCH_REPS ?? 5);
  const topK = Number(process.env.LEXICAL_BENCH_TOPK ?? 10);
  const c = corpus();
  const none = () => new Float32Array(0);
  const queries = benchQueries(c, 200, 7, none).map((q) => q.text);
  const coldQueries = benchQueries(c, 200, 9, none).map((q) => q.text);
  const open = () => {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('cache_size = -65536');
    return db;
  };
  const { feedbackMinWords: _, ...lexical } = DEFAULT_LEXICAL_OPTIONS;
  const input = (text: string, limit = topK): LexicalInput => ({
    text,
    columns: 'c.id',
    storeIds: [storeId],
    limit,
    ...lexical,
    feedback: null,
  });
  const run = (db: Database.Database, state: LexicalState, text: string) => {
    const t = performance.now();
    db.transaction(() => lexicalProgram(db, input(text), state))();
    return performance.now() - t;
  };
  const f = (x: number) => x.toFixed(2);
  const summary = (name: string, texts: string[], ms: number[]) => {
    const worst = ms
      .map((t, i) => [t, i] as const)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5)
      .map(([t, i]) => `"${texts[i]}" ${f(t)}`)
      .join(', ');
    process.stdout.write(`| ${name} | ${f(pct(ms, 50))} | ${f(pct(ms, 99))} | ${f(Math.max(...ms))} | ${worst} |\n`);
  };
  process.stdout.write(
    `\n## Lexical engine in process: ${n.toLocaleString('en')} chunks, top ${topK}, ${queries.length} queries\n\n`,
  );
  process.stdout.write(`| pass | p50 ms | p99 ms | max ms | slowest |\n|---|---:|---:|---:|---|\n`);

  // first pass, code and caches cold
  {
    const db = open();
    const state: LexicalState = {};
    summary(
      'first (cold code, cold caches: the cold row)',
      coldQueries,
      coldQueries.map((q) => run(db, state, q)),
    );
    db.close();
  }
  // the code warm: the cold queries again on one state
  const warmDb = open();
  const warmState: LexicalState = {};
  for (const q of coldQueries) run(warmDb, warmState, q);
  const coldLists = (preload: boolean) => {
    const ms: number[] = [];
    for (const q of queries) {
      const db = open();
      const state: LexicalState = {};
      if (preload) preloadAll(db, state);
      ms.push(run(db, state, q));
      db.close();
    }
    return ms;
  };
  const preloadAll = (db: Database.Database, state: LexicalState) => {
    const t = performance.now();
    let slices = 0;
    while (db.transaction(() => preloadLexical(db, { ...lexical, sliceMs: 5 }, state))()) slices++;
    return { ms: performance.now() - t, slices };
  };
  summary('cold lists (new connection and state a query, code warm)', queries, coldLists(false));
  // warm: per-query median over reps
  const per = queries.map(() => [] as number[]);
  for (let r = 0; r < reps; r++) queries.forEach((q, i) => per[i].push(run(warmDb, warmState, q)));
  summary(
    `warm (median of ${reps} a query)`,
    queries,
    per.map((xs) => pct(xs, 50)),
  );
  if (process.env.LEXICAL_BENCH_PRELOAD === '1') {
    const db = open();
    const state: LexicalState = {};
    const p = preloadAll(db, state);
    process.stdout.write(
      `| preload: ${f(p.ms)} ms in ${p.slices} slices, ${((state.blockBytes ?? 0) / 2 ** 20).toFixed(1)} MiB of blocks | | | | |\n`,
    );
    summary(
      'first after preload (code warm)',
      coldQueries,
      coldQueries.map((q) => run(db, state, q)),
    );
    // the steady state of a server whose preload is done: the measured queries again and again on that state
    const after = queries.map(() => [] as number[]);
    for (let r = 0; r < reps; r++) queries.forEach((q, i) => after[i].push(run(db, state, q)));
    summary(
      `warm after preload (median of ${reps} a query)`,
      queries,
      after.map((xs) => pct(xs, 50)),
    );
    db.close();
  }

  // the slowest queries with their lists cold, broken down
  const cold = coldLists(false);
  const slow = cold
    .map((t, i) => [t, i] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 4);
  process.stdout.write(
    `\nThe slowest with cold lists, broken down (ms; SQL and parsing as the reader does them):\n\n| query | cold | terms (df) | term rows | directories | blocks read | cached |\n|---|---:|---|---:|---:|---:|---:|\n`,
  );
  for (const [t, i] of slow) {
    const text = queries[i];
    const db = open();
    const key = (
      db.prepare(`SELECT store_key FROM lex_stores WHERE store_id = ?`).get(storeId) as { store_key: number }
    ).store_key;
    const terms = [
      ...(await import('@larder/chunk-index/analysis/analyzer'))
        .queryTerms(text, { stopWords: true, exactBonus: lexical.exactBonus, shortFormWeight: lexical.shortFormWeight })
        .keys(),
    ];
    const t0 = performance.now();
    const rows = terms.map(
      (term) =>
        db.prepare(`SELECT df, blocks FROM lex_terms WHERE store_key = ? AND term = ?`).get(key, term) as
          { df: number; blocks: number } | undefined,
    );
    const t1 = performance.now();
    const dirStmt = db
      .prepare(
        `SELECT json_group_array(block), json_group_array(first), json_group_array(last), json_group_array(count), json_group_array(max_body), json_group_array(max_heading), json_group_array(min_length)
         FROM lex_blocks WHERE store_key = ? AND term = ? AND block >= 0`,
      )
      .raw();
    for (const term of terms) (dirStmt.get(key, term) as string[]).map((x) => JSON.parse(x) as number[]);
    const t2 = performance.now();
    const range = db
      .prepare(
        `SELECT json_group_array(block), json_group_array(length(data)), CAST(group_concat(data, '') AS BLOB)
         FROM (SELECT block, data FROM lex_blocks WHERE store_key = ? AND term = ? AND block >= ? AND block < ? ORDER BY block)`,
      )
      .raw();
    terms.forEach((term, j) => {
      for (let b = 0; b < (rows[j]?.blocks ?? 0); b += 64) range.get(key, term, b, b + 64);
    });
    const t3 = performance.now();
    const state: LexicalState = {};
    run(db, state, text);
    const cached = Math.min(run(db, state, text), run(db, state, text), run(db, state, text));
    db.close();
    process.stdout.write(
      `| ${text} | ${f(t)} | ${terms.map((x, j) => `${x.replace('\u0001', '=')} ${rows[j]?.df ?? 0}`).join(', ')} | ${f(t1 - t0)} | ${f(t2 - t1)} | ${f(t3 - t2)} | ${f(cached)} |\n`,
    );
  }
  warmDb.close();
}

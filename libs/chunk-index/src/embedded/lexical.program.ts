import type Database from 'better-sqlite3';

export interface LexicalInput {
  text: string;
  /** the columns of a hit (`c`: chunks, `f`: files) */
  columns: string;
  /** SQL condition on `c` (the chunks table) that selects the candidate chunks, and its parameters */
  where: string;
  params: unknown[];
  /** rows wanted (before any metadata filter, which the caller applies) */
  limit: number;
  /** postings the query may score (see below) */
  budget: number;
  /** drop English stop words from the query (kept when the query has nothing else) */
  stopWords?: boolean;
  /** RM3 pseudo-relevance feedback: expansion terms from the `docs` best chunks of a first pass, `terms` of them, the original query weighted `originalWeight` */
  feedback?: { docs: number; terms: number; originalWeight: number } | null;
}

/** What the program keeps between calls where it runs: document frequencies of recent terms. */
export interface LexicalState {
  df?: Map<string, number>;
  dfN?: number;
  stop?: Set<string>;
}

/**
 * BM25 retrieval on the FTS5 index, as one self-contained function: it uses nothing but its
 * arguments and JavaScript's globals, so the chunk index runs it either on its own connection or,
 * from its source text, in the read worker beside the event loop (sqlite-read-worker.ts).
 *
 * The FTS5 tokenizer stems (Porter) and folds case and diacritics. English stop words are dropped from
 * the query (`stopWords`), unless nothing else is left.
 *
 * SQLite's FTS5 scores every chunk that contains any term (it has no dynamic pruning), so the cost is
 * the sum of the terms' document frequencies. Terms in more than 10% of all chunks are dropped when
 * rarer ones remain (their IDF is low), and then, rarest first, terms are kept while their postings
 * stay within `budget` (the rarest term is always kept). Small indexes keep every term.
 *
 * With `feedback` (RM3 pseudo-relevance feedback), a first pass ranks the asked chunks with the query,
 * the `docs` best of them give a relevance model (Σ over those chunks of p(term | chunk) × the chunk's
 * share of their BM25 scores, stop words, numbers and terms in more than 10% of the chunks left out),
 * its `terms` best terms are interpolated with the query (the query's terms weighted `originalWeight`,
 * the expansion the rest), and the weighted query ranks again. FTS5's bm25() sums over the query's
 * phrases, so a term's weight is carried by repeating it (weights quantised to 1–4 repetitions).
 *
 * Ranking runs on the FTS index alone, then the best rows are looked up; scores are global, so the
 * best rows of the asked stores among the global top are exactly their top; too few: join first.
 */
export function lexicalProgram(db: Database.Database, input: LexicalInput, state: LexicalState): Array<Record<string, unknown>> {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // Lucene's English stop words and the common function words of questions (NLTK's list)
  const stop = (state.stop ??= new Set(
    (
      'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each ' +
      'few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off ' +
      'on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those ' +
      'through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves also may might must shall ' +
      'upon us yet etc'
    ).split(' '),
  ));
  let all: string[] = words(input.text);
  if (input.stopWords) {
    const content = all.filter((w) => !stop.has(w));
    if (content.length) all = content;
  }
  const n = (db.prepare(`SELECT max(id) AS n FROM chunks`).get() as { n: number | null }).n ?? 0;
  // document frequencies, cached until the index has grown or shrunk by a tenth
  if (!state.df || !state.dfN || n > state.dfN * 1.1 || n < state.dfN * 0.9) {
    state.df = new Map();
    state.dfN = n;
  }
  const cache = state.df;
  const count = db.prepare(`SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?`);
  const dfOf = (t: string) => {
    let df = cache.get(t);
    if (df === undefined) {
      df = (count.get(`"${t}"`) as { n: number }).n;
      if (cache.size > 50_000) cache.clear();
      cache.set(t, df);
    }
    return df;
  };
  const queryTf = new Map<string, number>();
  for (const w of all) queryTf.set(w, (queryTf.get(w) ?? 0) + 1);
  let terms = [...queryTf.keys()].slice(0, 64);
  if (!terms.length) return [];
  let postings = 0;
  if (n >= 2000) {
    const withDf = terms.map((t) => ({ t, df: dfOf(t) })).sort((a, b) => a.df - b.df);
    const kept: string[] = [];
    for (const x of withDf) {
      if (kept.length && (x.df > n * 0.1 || postings + x.df > input.budget)) continue;
      kept.push(x.t);
      postings += x.df;
    }
    terms = kept;
  }

  const { where, params } = input;
  const select = `SELECT ${input.columns}`;
  const rank = (weighted: Array<[string, number]>, limit: number): Array<Record<string, unknown>> => {
    const match = weighted.flatMap(([t, reps]) => Array.from({ length: reps }, () => `"${t}"`)).join(' OR ');
    const probe = limit * 4;
    const top = db.prepare(`SELECT rowid AS id, -bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?`).all(match, probe) as Array<{
      id: number;
      score: number;
    }>;
    if (top.length) {
      // which of the globally best rows belong to the asked stores and files (rowid lookups only), then
      // the full rows of the `limit` best of them
      const score = new Map(top.map((r) => [r.id, r.score]));
      const allowed = db
        .prepare(`SELECT c.id FROM chunks c WHERE c.id IN (${top.map(() => '?').join(',')}) AND ${where}`)
        .pluck()
        .all(...top.map((r) => r.id), ...params) as number[];
      if (allowed.length >= limit || top.length < probe) {
        const ids = allowed.sort((a, b) => score.get(b)! - score.get(a)! || a - b).slice(0, limit);
        if (!ids.length) return [];
        const rows = db.prepare(`${select} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.id IN (${ids.map(() => '?').join(',')})`).all(...ids) as Array<
          Record<string, unknown>
        >;
        for (const r of rows) r.score = score.get(r.id as number);
        return rows.sort((a, b) => (b.score as number) - (a.score as number) || (a.id as number) - (b.id as number));
      }
    }
    return db
      .prepare(
        `${select}, -bm25(chunks_fts) AS score
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id
          WHERE chunks_fts MATCH ? AND ${where} ORDER BY bm25(chunks_fts) LIMIT ?`,
      )
      .all(match, ...params, limit) as Array<Record<string, unknown>>;
  };

  const plain = terms.map((t): [string, number] => [t, 1]);
  const fb = input.feedback;
  if (!fb || fb.docs <= 0 || fb.terms <= 0) return rank(plain, input.limit);
  // RM3: the relevance model of the first pass's best chunks (of the asked stores only)
  const first = rank(plain, fb.docs);
  const total = first.reduce((s, r) => s + (r.score as number), 0);
  if (!first.length || !(total > 0)) return rank(plain, input.limit);
  const model = new Map<string, number>();
  for (const r of first) {
    const ws = words(r.text as string);
    if (!ws.length) continue;
    const share = (r.score as number) / total / ws.length;
    for (const w of ws) {
      if (w.length < 2 || w.length > 20 || stop.has(w) || /^\d+$/.test(w)) continue;
      model.set(w, (model.get(w) ?? 0) + share);
    }
  }
  const expansion: Array<[string, number]> = [];
  let budgetLeft = input.budget - postings;
  for (const [t, p] of [...model.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (expansion.length >= fb.terms) break;
    const df = dfOf(t);
    if (df > n * 0.1) continue;
    if (n >= 2000 && df > budgetLeft) continue;
    budgetLeft -= df;
    expansion.push([t, p]);
  }
  if (!expansion.length) return rank(plain, input.limit);
  const qTotal = terms.reduce((s, t) => s + queryTf.get(t)!, 0);
  const eTotal = expansion.reduce((s, [, p]) => s + p, 0);
  const weight = new Map<string, number>();
  for (const t of terms) weight.set(t, (fb.originalWeight * queryTf.get(t)!) / qTotal);
  for (const [t, p] of expansion) weight.set(t, (weight.get(t) ?? 0) + ((1 - fb.originalWeight) * p) / eTotal);
  const max = Math.max(...weight.values());
  const weighted = [...weight.entries()].map(([t, w]): [string, number] => [t, Math.round((4 * w) / max)]).filter(([, reps]) => reps > 0);
  return rank(weighted, input.limit);
}

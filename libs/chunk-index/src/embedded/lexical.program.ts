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
}

/** What the program keeps between calls where it runs: document frequencies of recent terms. */
export interface LexicalState {
  df?: Map<string, number>;
  dfN?: number;
}

/**
 * BM25 retrieval on the FTS5 index, as one self-contained function: it uses nothing but its
 * arguments and JavaScript's globals, so the chunk index runs it either on its own connection or,
 * from its source text, in the read worker beside the event loop (sqlite-read-worker.ts).
 *
 * SQLite's FTS5 scores every chunk that contains any term (it has no dynamic pruning), so the cost is
 * the sum of the terms' document frequencies. Terms in more than 10% of all chunks are dropped when
 * rarer ones remain (their IDF is low), and then, rarest first, terms are kept while their postings
 * stay within `budget` (the rarest term is always kept). Small indexes keep every term.
 * Ranking runs on the FTS index alone, then the best rows are looked up; scores are global, so the
 * best rows of the asked stores among the global top are exactly their top; too few: join first.
 */
export function lexicalProgram(db: Database.Database, input: LexicalInput, state: LexicalState): Array<Record<string, unknown>> {
  const all = input.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  let terms = [...new Set(all)].slice(0, 64);
  if (!terms.length) return [];
  if (terms.length > 1) {
    const n = (db.prepare(`SELECT max(id) AS n FROM chunks`).get() as { n: number | null }).n ?? 0;
    if (n >= 2000) {
      // document frequencies, cached until the index has grown or shrunk by a tenth
      if (!state.df || !state.dfN || n > state.dfN * 1.1 || n < state.dfN * 0.9) {
        state.df = new Map();
        state.dfN = n;
      }
      const cache = state.df;
      const count = db.prepare(`SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?`);
      const withDf = terms
        .map((t) => {
          let df = cache.get(t);
          if (df === undefined) {
            df = (count.get(`"${t}"`) as { n: number }).n;
            if (cache.size > 50_000) cache.clear();
            cache.set(t, df);
          }
          return { t, df };
        })
        .sort((a, b) => a.df - b.df);
      const kept: string[] = [];
      let postings = 0;
      for (const x of withDf) {
        if (kept.length && (x.df > n * 0.1 || postings + x.df > input.budget)) continue;
        kept.push(x.t);
        postings += x.df;
      }
      terms = kept;
    }
  }
  const match = terms.map((t) => `"${t}"`).join(' OR ');

  const { where, params } = input;
  const select = `SELECT ${input.columns}`;
  const probe = input.limit * 4;
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
    if (allowed.length >= input.limit || top.length < probe) {
      const ids = allowed.sort((a, b) => score.get(b)! - score.get(a)! || a - b).slice(0, input.limit);
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
    .all(match, ...params, input.limit) as Array<Record<string, unknown>>;
}

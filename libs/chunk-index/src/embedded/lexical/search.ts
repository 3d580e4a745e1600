import type Database from 'better-sqlite3';
import { analyzeChunk, EXACT, headingContextOf, queryTerms, stemOf, STOP_WORDS } from '../../analysis/analyzer';
import type { LexicalInput, StoreStats } from './input';
import { rankStore } from './rank-store';
import type { LexicalState } from './state';

/** Result rows fetched with `IN (?, …)` (placeholders padded to a power of two, statements cached) up to this many. */
const MAX_ROW_PLACEHOLDERS = 1024;

/**
 * Lexical retrieval on Larder's own index (writer.ts): exact BM25 top-k per store with that store's
 * statistics (rank-store.ts chooses, per store, the ranker that reads least: max-score.ts, rank-flat.ts
 * or rank-impact.ts; the same top from each), then the stores' tops merged. Runs in the read worker
 * (loaded by path) or on the index's own connection. Lists are read through the directory and block
 * caches (directory-cache.ts, block-cache.ts), which preload.ts fills between queries.
 *
 * With `feedback` (RM3), the `docs` best chunks of a first pass give a relevance model (Σ over them of
 * p(term | chunk) × the chunk's share of their scores; stop words, numbers and terms in more than a
 * tenth of the asked chunks left out); its `terms` best terms are interpolated with the query's
 * (weighted `originalWeight`) and the weighted query ranks again.
 */
export function lexicalProgram(
  db: Database.Database,
  input: LexicalInput,
  state: LexicalState,
): Array<Record<string, unknown>> {
  const st = (state.statements ??= {});
  const stmt = (name: string, sql: string) => (st[name] ??= db.prepare(sql));
  const stores: StoreStats[] = [];
  for (const storeId of input.storeIds) {
    const r = stmt(
      'store',
      `SELECT store_key, n, total_length, code, multi, dead, cgen FROM lex_stores WHERE store_id = ?`,
    ).get(storeId) as
      | {
          store_key: number;
          n: number;
          total_length: number;
          code: number;
          multi: number;
          dead: number;
          cgen: number;
        }
      | undefined;
    if (r && r.n > 0)
      stores.push({
        storeId,
        key: r.store_key,
        n: r.n,
        avgLength: Math.max(r.total_length / r.n, 1e-9),
        codeShare: Math.min(Math.max(r.code / r.n, 0), 1),
        multiShare: Math.min(Math.max(r.multi / r.n, 0), 1),
        dead: r.dead,
        cgen: r.cgen,
      });
  }
  if (!stores.length) return [];
  const query = queryTerms(input.text, {
    stopWords: input.stopWords,
    exactBonus: input.exactBonus,
    shortFormWeight: input.shortFormWeight,
  });
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
    const sql = (where: string) =>
      `SELECT ${input.columns} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE ${where}`;
    out.push(
      ...(byIds(ids, (slots, where) => stmt(`rows:${input.columns}:${slots}`, sql(where))) as Array<
        Record<string, unknown>
      >),
    );
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
        (slots, where) =>
          stmt(`texts:${slots}`, `SELECT c.id, c.text, c.generated_metadata FROM chunks c WHERE ${where}`),
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
    const a = analyzeChunk(
      row.text,
      headingContextOf(row.generated_metadata ? JSON.parse(row.generated_metadata) : null),
    );
    if (!a.length) continue;
    const share = r.score / total / a.length;
    for (const [t, tf] of a.terms) {
      if (t.startsWith(EXACT) || t.length < 2 || t.length > 20 || STOP_WORDS.has(t) || /^\d+$/.test(t)) continue;
      model.set(t, (model.get(t) ?? 0) + share * (tf.body + tf.heading));
    }
  }
  const n = stores.reduce((x, s) => x + s.n, 0);
  const dfOf = (t: string) =>
    stores.reduce(
      (x, s) =>
        x +
        ((
          stmt('term', `SELECT df, gen FROM lex_terms WHERE store_key = ? AND term = ?`).get(s.key, t) as
            { df: number } | undefined
        )?.df ?? 0),
      0,
    );
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
  if (ids.length > MAX_ROW_PLACEHOLDERS)
    return stmt(0, `c.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
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

/** The exhaustive BM25 oracle the lexical engine is checked against: per-store scoring, scorer choices, top-10 comparison. */
import Database from 'better-sqlite3';
import { analyzeChunk, headingContextOf, queryTerms } from '../analysis/analyzer';
import { DEFAULT_BM25, normLength } from '../analysis/bm25';
import type { LexicalInput } from '../embedded/lexical/input';

/**
 * A lexical program's input over store `s` as the specs ask it: row ids, top 10, the default BM25, stop
 * words dropped, no exact-form bonus, no feedback; `more` over that.
 */
export const lexicalInput = (text: string, more: Partial<LexicalInput> = {}): LexicalInput => ({
  text,
  columns: 'c.id AS id',
  storeIds: ['s'],
  limit: 10,
  ...DEFAULT_BM25,
  exactBonus: 0,
  shortFormWeight: 0,
  stopWords: true,
  feedback: null,
  ...more,
});

/** The path and symbol fields' weights the property's indexes are built with (both fields, weighted unlike headings). */
export const FIELD_WEIGHTS = { path: 2, symbols: 1 };

/**
 * Which scorer answers: the flat one always, MaxScore always, the default choice by cost (FLAT_COST_RATIO; no
 * postings floor), by impacts (rankImpact) wherever a list fills an eighth of its id range, however short (the
 * query makes it dense), by impacts only where the preload made a list dense (with the other lists few
 * postings: IMPACT_SPARSE_MAX_POSTINGS; else MaxScore, looking the dense lists up), or by MaxScore looking up the
 * lists the preload made dense (impacts only where every list is dense).
 */
export const SCORERS = {
  flat: { flatMaxPostings: Infinity, denseMinPostings: Infinity },
  maxscore: { flatMaxPostings: 0, flatCostRatio: 0, denseMinPostings: Infinity },
  cost: { flatMaxPostings: 0 },
  impact: { flatMaxPostings: Infinity, denseMinPostings: 1 },
  preloadedImpact: { flatMaxPostings: 0, flatCostRatio: 0, denseMinPostings: 1 },
  preloadedMaxScore: { flatMaxPostings: 0, flatCostRatio: 0, denseMinPostings: 1, impactSparseMaxPostings: 0 },
};

/** The exhaustive BM25 top 10 (and the chunks below it within rounding of the 10th): every live chunk of the asked stores and files, per-store statistics. */
export function bruteForce(
  db: Database.Database,
  q: { words: string[]; stores: string[]; include: string[] | null; exclude: string[] | null },
  p: {
    k1: number;
    b: number;
    codeB?: number;
    multiChunkB?: number;
    headingWeight: number;
    exactBonus: number;
    shortFormWeight?: number;
    stopWords: boolean;
  },
): Array<{ key: string; score: number }> {
  const weights = queryTerms(q.words.join(' '), p);
  const out: Array<{ id: number; key: string; score: number }> = [];
  for (const store of q.stores) {
    const rows = db
      .prepare(
        `SELECT c.id, c.file_id, c.chunk_index, c.text, c.generated_metadata, f.filename FROM chunks c
         JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.store_id = ?`,
      )
      .all(store) as Array<{
      id: number;
      file_id: string;
      chunk_index: number;
      text: string;
      generated_metadata: string | null;
      filename: string;
    }>;
    if (!rows.length) continue;
    const docs = rows.map((r) => {
      const meta = r.generated_metadata ? (JSON.parse(r.generated_metadata) as { type?: string }) : null;
      const fields = { path: r.filename, code: meta?.type === 'code', weights: FIELD_WEIGHTS };
      return { ...r, code: fields.code, a: analyzeChunk(r.text, headingContextOf(meta), fields) };
    });
    const n = docs.length;
    // each chunk's length blended with its file's, a file of several chunks counted in the multi-chunk share
    const files = new Map<string, { length: number; chunks: number }>();
    for (const d of docs) {
      const f = files.get(d.file_id) ?? { length: 0, chunks: 0 };
      files.set(d.file_id, { length: f.length + d.a.length, chunks: f.chunks + 1 });
    }
    const lengthOf = (d: (typeof docs)[number]) => normLength(d.a.length, files.get(d.file_id)!.length);
    const avg = docs.reduce((s, d) => s + lengthOf(d), 0) / n || 1e-9;
    const codeShare = docs.filter((d) => d.code).length / n;
    const multiShare = docs.filter((d) => files.get(d.file_id)!.chunks > 1).length / n;
    let b = p.b;
    if (p.multiChunkB !== undefined) b += (p.multiChunkB - b) * multiShare;
    if (p.codeB !== undefined) b += (p.codeB - b) * codeShare;
    const df = new Map<string, number>();
    for (const d of docs) for (const t of d.a.terms.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    for (const d of docs) {
      if (q.include && !q.include.includes(d.file_id)) continue;
      if (q.exclude && q.exclude.includes(d.file_id)) continue;
      let score = 0;
      let matched = false;
      for (const [t, w] of weights) {
        const tf = d.a.terms.get(t);
        if (!tf) continue;
        matched = true;
        const f = tf.body + p.headingWeight * tf.heading;
        const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        score += (w * idf * (f * (p.k1 + 1))) / (f + p.k1 * (1 - b + (b * lengthOf(d)) / avg));
      }
      if (matched) out.push({ id: d.id, key: `${store}/${d.file_id}/${d.chunk_index}`, score });
    }
  }
  const all = out.sort((x, y) => y.score - x.score || x.id - y.id);
  // the top 10 and every chunk just below within rounding of the 10th: a near tie across the cut lets either in
  const cut = all[9]?.score;
  return cut === undefined ? all : all.filter((e, i) => i < 10 || e.score >= cut - 1e-9 * Math.abs(cut));
}

/**
 * The engine's top 10 against the exhaustive one (`band`: its top 10 and the chunks within rounding of
 * the 10th): as many hits; at every rank the hit's score is the exhaustive one at that rank, and so is the
 * hit chunk's own exhaustive score (within 1e-9 relative); no chunk twice. So the same chunks in the same
 * order, except where scores tie within rounding: the engine computes a posting's score as idf × weight
 * × its saturated count, the spec in another order, so two chunks whose sums tie exactly here may differ
 * by an ulp there (or the reverse), and either order is right.
 */
export function expectTop(
  got: Array<{ key: string; score: number }>,
  band: Array<{ key: string; score: number }>,
): void {
  const expected = band.slice(0, 10);
  const tol = (x: number) => 1e-9 * Math.max(1, Math.abs(x));
  const exact = new Map(band.map((e) => [e.key, e.score]));
  expect(got.length).toBe(expected.length);
  expect(new Set(got.map((g) => g.key)).size).toBe(got.length);
  got.forEach((g, i) => {
    expect(Math.abs(g.score - expected[i].score)).toBeLessThanOrEqual(tol(expected[i].score));
    // a chunk of the band (the top, or within rounding of its cut), scored there as this rank's
    if (!exact.has(g.key))
      throw new Error(`rank ${i + 1}: ${g.key} is not in the exhaustive top 10 (or within rounding of its cut)`);
    expect(Math.abs(exact.get(g.key)! - expected[i].score)).toBeLessThanOrEqual(tol(expected[i].score));
  });
}

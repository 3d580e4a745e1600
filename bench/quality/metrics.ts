/** A document as uploaded: its bytes and its name (parsed and chunked as the API does). */
export interface Doc {
  id: string;
  filename: string;
  body: string;
}

/** A judged query: document id → gain. */
export interface Judged {
  text: string;
  gains: Map<string, number>;
}

/** Mean nDCG@10, recall@100 and MRR (first relevant document within 100), and each query's nDCG@10 (for the paired test). */
export interface Score {
  ndcg: number;
  recall: number;
  mrr: number;
  perQuery?: number[];
}

/** One collection: its documents and judged queries. */
export interface QualitySet {
  docs: Doc[];
  queries: Judged[];
}

/** nDCG@10 with the judgments' gains as given (linear gain). */
export function ndcgAt10(ranked: string[], gains: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => (dcg += (gains.get(id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...gains.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}

export const recallAt = (ranked: string[], gains: Map<string, number>, k: number) =>
  ranked.slice(0, k).filter((id) => gains.has(id)).length / gains.size;

/** 1 / the rank of the first relevant document within the first `k`, 0 when none. */
export function reciprocalRank(ranked: string[], gains: Map<string, number>, k = 100): number {
  const i = ranked.slice(0, k).findIndex((id) => (gains.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** The score of ranked document ids per query (nDCG@10 of `top10`, what the API answers for top_k 10; recall and MRR of `lists`). */
export function scoreRankings(queries: Judged[], lists: string[][], top10 = lists): Score {
  let n = 0;
  let r = 0;
  let m = 0;
  const perQuery: number[] = [];
  lists.forEach((list, i) => {
    const q = ndcgAt10(top10[i], queries[i].gains);
    perQuery.push(q);
    n += q;
    r += recallAt(list, queries[i].gains, 100);
    m += reciprocalRank(list, queries[i].gains);
  });
  const k = lists.length || 1;
  return { ndcg: n / k, recall: r / k, mrr: m / k, perQuery };
}

/**
 * Two-sided paired randomization test (Smucker, Allan & Carterette 2007) of mean(a) − mean(b) over
 * the same queries: each query's difference has its sign flipped at random `rounds` times (seeded, so
 * a run repeats); p is the share of rounds whose |mean| reaches the observed one.
 */
export function pairedRandomization(a: number[], b: number[], rounds = 10_000, seed = 7): { delta: number; p: number } {
  if (a.length !== b.length || !a.length) throw new Error('paired test: the same queries on both sides');
  const d = a.map((x, i) => x - b[i]);
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  let x = seed >>> 0;
  let reach = 0;
  for (let r = 0; r < rounds; r++) {
    let sum = 0;
    for (const v of d) {
      // xorshift32: one bit per query
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      sum += x & 1 ? v : -v;
    }
    if (Math.abs(sum) >= observed - 1e-12) reach++;
  }
  return { delta: d.reduce((s, v) => s + v, 0) / d.length, p: (reach + 1) / (rounds + 1) };
}

/** `delta (p …)` of a paired test, for the tables. */
export function pairedCell(a: number[], b: number[]): string {
  const { delta, p } = pairedRandomization(a, b);
  return `${delta >= 0 ? '+' : ''}${delta.toFixed(3)} (p ${p < 0.001 ? '< 0.001' : p.toFixed(3)})`;
}

/** Prints a Markdown table of scores (with an optional extra column). */
export function table(title: string, rs: Array<[string, Score, string]>, extra?: string): void {
  const w = Math.max(...rs.map((r) => r[0].length), title.length);
  process.stdout.write(
    `| ${title.padEnd(w)} | nDCG@10 | recall@100 |    MRR |${extra ? ` ${extra} |` : ''}\n|${'-'.repeat(w + 2)}|--------:|-----------:|-------:|${extra ? `${'-'.repeat(extra.length + 1)}:|` : ''}\n`,
  );
  for (const [k, v, x] of rs)
    process.stdout.write(
      `| ${k.padEnd(w)} | ${v.ndcg.toFixed(3).padStart(7)} | ${v.recall.toFixed(3).padStart(10)} | ${v.mrr.toFixed(3).padStart(6)} |${extra ? ` ${x.padStart(extra.length)} |` : ''}\n`,
    );
  process.stdout.write('\n');
}

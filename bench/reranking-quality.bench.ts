import { createHash } from 'crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { cosineSimilarity as cosine, type EmbedOptions, type Embedder } from '@larder/ai';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { candidateBm25 } from '@larder/search/web/joint-ranking';
import { fusedScores, hybridScores, HybridRankingOptions } from '@larder/search/models/hybrid-ranking';
import { DEFAULT_RERANK_FUSION } from '../apps/api/src/config/search';
import { beir, DATA } from './quality/beir.set';
import { ndcgAt10 } from './quality/metrics';

const CANDIDATES = Number(process.env.BENCH_RERANK_CANDIDATES ?? 100);
const TIMED_QUERIES = Number(process.env.BENCH_RERANK_TIMED ?? 5);
/** The documents' vectors, kept on disk between runs (BENCH_QUALITY_CACHE, as the search-quality bench): embedding them is the slow part. */
const CACHE = process.env.BENCH_QUALITY_CACHE ?? join(tmpdir(), 'larder-bench-quality-vectors');

/** The embedder with every text's vector kept: each document is embedded once for all queries and variants (the ranking is the same). */
class KeptVectors implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;
  private readonly kept = new Map<string, Float32Array>();
  constructor(private readonly inner: Embedder) {
    this.model = inner.model;
    this.dimensions = inner.dimensions;
    this.batchSize = inner.batchSize;
  }
  async embed(texts: string[], kind: 'document' | 'query', options?: EmbedOptions): Promise<Float32Array[]> {
    const key = (t: string) => `${kind}\u0000${t}`;
    const missing = [...new Set(texts.filter((t) => !this.kept.has(key(t))))];
    if (missing.length)
      (await this.inner.embed(missing, kind, options)).forEach((v, i) => this.kept.set(key(missing[i]), v));
    return texts.map((t) => this.kept.get(key(t))!);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  /** Embeds `texts` as documents, or reads their vectors from the disk cache. */
  async keepDocuments(texts: string[]): Promise<void> {
    const file = join(
      CACHE,
      `rerank-${createHash('sha1')
        .update([this.model, ...texts].join('\u0000'))
        .digest('hex')}.f32`,
    );
    let vectors: Float32Array[];
    if (existsSync(file)) {
      const buf = readFileSync(file);
      const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
      vectors = texts.map((_, i) => all.slice(i * this.dimensions, (i + 1) * this.dimensions));
    } else {
      vectors = await this.inner.embed(texts, 'document');
      mkdirSync(CACHE, { recursive: true });
      writeFileSync(file, Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));
    }
    vectors.forEach((v, i) => this.kept.set(`document\u0000${texts[i]}`, v));
  }
}

/**
 * `POST /v1/reranking` without a reranking model (the hybrid ranking, `hybridScores`, exactly as the
 * API runs it) on CISI (tuning) and Cranfield (held out): for each judged query, a first stage over the
 * whole collection (BM25 with the ranking's own formula and collection statistics, or cosine by the
 * same embedding model) gives its top `BENCH_RERANK_CANDIDATES` (100), which are sent to the reranking
 * as one request; nDCG@10 of the returned order is averaged. Variants show what each half and each
 * weight bring; then the time of one request of 100 documents with nothing kept (embedding the
 * documents is the cost).
 */
export async function rerankingQualityBench(): Promise<void> {
  const use = new UseLiteEmbedder();
  try {
    for (const [name, label] of [
      ['cisi', 'CISI (tuning)'],
      ['cranfield', 'Cranfield (HELD OUT: reported, never tuned on)'],
    ]) {
      const dir = join(DATA, name);
      if (!existsSync(join(dir, 'corpus.jsonl'))) {
        process.stdout.write(
          `\n(${dir} not found: set BENCH_QUALITY_DATA to the folder holding cisi/ and cranfield/)\n`,
        );
        continue;
      }
      if (name === 'cranfield' && process.env.BENCH_QUALITY_HELD_OUT === '0') continue;
      await evaluate(label, dir, use);
    }
  } finally {
    await use.close();
  }
}

async function evaluate(label: string, dir: string, use: UseLiteEmbedder): Promise<void> {
  const { docs, queries } = beir(dir);
  const embedder = new KeptVectors(use);
  const t0 = performance.now();
  const texts = docs.map((d) => d.body);
  await embedder.keepDocuments(texts);
  process.stdout.write(
    `\n## Reranking without a reranking model: ${label}\n${docs.length} documents embedded with ${use.model} (or read from ${CACHE}) in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${queries.length} judged queries; the top ${CANDIDATES} documents of a first stage over the collection (BM25, or cosine by the same model) are reranked in one request per query\n\n`,
  );

  const queryVectors = await embedder.embed(
    queries.map((q) => q.text),
    'query',
  );
  const docVectors = await embedder.embed(texts, 'document');
  const top = (scores: number[]) =>
    scores
      .map((score, i) => ({ i, score }))
      .sort((x, y) => y.score - x.score || x.i - y.i)
      .slice(0, CANDIDATES)
      .map((x) => x.i);
  // two first stages a reranking gets its documents from: a lexical retriever and a dense one
  const stages: Array<[string, number[][]]> = [
    ['BM25', queries.map((q) => top(candidateBm25(q.text, texts)))],
    ['dense', queryVectors.map((qv) => top(docVectors.map((v) => cosine(qv, v))))],
  ];
  const ndcg = (orders: number[][]) =>
    orders.reduce(
      (sum, order, qi) =>
        sum +
        ndcgAt10(
          order.map((i) => docs[i].id),
          queries[qi].gains,
        ),
      0,
    ) / orders.length;
  const reorder = (candidates: number[], scores: number[]) =>
    candidates
      .map((doc, k) => ({ doc, k, score: scores[k] }))
      .sort((x, y) => y.score - x.score || x.k - y.k)
      .map((x) => x.doc);

  const served = {
    method: DEFAULT_RERANK_FUSION.method,
    lexicalWeight: DEFAULT_RERANK_FUSION.lexicalWeight['use-lite'],
  };
  const names: string[] = [];
  const columns: number[][] = [];
  for (const [, firstStage] of stages) {
    const col: number[] = [];
    const row = (name: string, value: number) => {
      if (columns.length === 0) names.push(name);
      col.push(value);
    };
    row('the first stage as it ranked them (no reranking)', ndcg(firstStage));
    const servedOrders: number[][] = [];
    for (const [qi, q] of queries.entries()) {
      const cand = firstStage[qi];
      servedOrders.push(
        reorder(
          cand,
          await hybridScores(
            embedder,
            q.text,
            cand.map((i) => texts[i]),
            served,
          ),
        ),
      );
    }
    row(
      `larder-hybrid-rerank as served (${served.method}, lexical weight ${served.lexicalWeight})`,
      ndcg(servedOrders),
    );
    // the variants, from the same BM25 (over the candidates) and cosines
    const parts = firstStage.map((cand, qi) => ({
      bm25: candidateBm25(
        queries[qi].text,
        cand.map((i) => texts[i]),
      ),
      qv: queryVectors[qi],
      dv: cand.map((i) => docVectors[i]),
    }));
    const variant = (name: string, options: HybridRankingOptions) =>
      row(name, ndcg(parts.map((p, qi) => reorder(firstStage[qi], fusedScores(p.bm25, p.qv, p.dv, options)))));
    variant('lexical half only (BM25 over the candidates)', { method: 'relative', lexicalWeight: 1 });
    row(
      'embedding half only (cosine)',
      ndcg(
        parts.map((p, qi) =>
          reorder(
            firstStage[qi],
            p.dv.map((v) => cosine(p.qv, v)),
          ),
        ),
      ),
    );
    for (const w of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
      variant(`relative, lexical weight ${w}`, { method: 'relative', lexicalWeight: w });
    for (const w of [0.3, 0.5]) variant(`rrf (k 60), lexical weight ${w}`, { method: 'rrf', lexicalWeight: w });
    columns.push(col);
  }

  const w = Math.max(...names.map((n) => n.length));
  const heads = stages.map(([n]) => `top ${CANDIDATES} of ${n}`);
  process.stdout.write(
    `| ${'ranking (nDCG@10)'.padEnd(w)} | ${heads.join(' | ')} | mean |\n|${'-'.repeat(w + 2)}|${heads.map((h) => `${'-'.repeat(h.length + 1)}:|`).join('')}-----:|\n`,
  );
  names.forEach((n, r) => {
    const vals = columns.map((c) => c[r]);
    process.stdout.write(
      `| ${n.padEnd(w)} | ${vals.map((v, k) => v.toFixed(3).padStart(heads[k].length)).join(' | ')} | ${(vals.reduce((x, y) => x + y, 0) / vals.length).toFixed(3)} |\n`,
    );
  });
  const firstStage = stages[0][1];

  // one request as the API serves it: nothing kept, the documents and the query embedded
  const times: number[] = [];
  for (const [qi, q] of queries.slice(0, TIMED_QUERIES).entries()) {
    const t = performance.now();
    await hybridScores(
      use,
      q.text,
      firstStage[qi].map((i) => texts[i]),
      served,
    );
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(
    `\none request of ${CANDIDATES} documents (${use.model} on this machine, nothing kept): median ${times[Math.floor(times.length / 2)].toFixed(0)} ms over ${times.length} queries\n\n`,
  );
}

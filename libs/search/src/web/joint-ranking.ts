import { cosineSimilarity as cosine } from '@larder/ai';
import { uuidFrom } from '@larder/kernel';
import type { ScoredChunk } from '@larder/chunk-index';
import { idf, OKAPI_BM25, tfNorm } from '@larder/chunk-index/analysis/bm25';
import { contentTerms } from '../answering/text';
import { chunkKey, fuse, FusionMethod } from '../ranking';
import type { RankedChunk } from '../retrieval';
import { normalizeUrl } from './mixed-web-search';
import { WEB_STORE, WebResult } from './web-search.port';

/**
 * A web result as a scored chunk of the response (a `text` chunk): `store_id` is `mixedbread/web`,
 * `file_id` a UUID derived from the normalized URL (the same page gets the same id in every search),
 * `chunk_index` 0, `filename` the URL (mgrep treats a filename starting with `http` as a web result),
 * `text` the title and the snippet, `metadata` `{url, title, snippet, published, provider, providers}`.
 */
export function webChunk(r: WebResult): ScoredChunk {
  return {
    storeId: WEB_STORE,
    fileId: uuidFrom(`larder:web:${normalizeUrl(r.url)}`),
    chunkIndex: 0,
    type: 'text',
    text: r.snippet ? `${r.title}\n\n${r.snippet}` : r.title,
    offset: 0,
    mimeType: 'text/plain',
    generatedMetadata: null,
    model: null,
    score: 0,
    filename: r.url,
    externalId: null,
    metadata: {
      url: r.url,
      title: r.title,
      snippet: r.snippet,
      published: r.published,
      provider: r.provider,
      providers: r.providers ?? [r.provider],
    },
  };
}

/**
 * Okapi BM25 (k1 1.2, b 0.75) of `query` against every text of one candidate set, document
 * frequencies and the average length taken over that set; terms are the stemmed content words of the
 * answering helpers (stop words left out).
 */
export function candidateBm25(query: string, texts: string[]): number[] {
  const qTerms = [...new Set(contentTerms(query))];
  if (!qTerms.length || !texts.length) return texts.map(() => 0);
  const docs = texts.map((t) => contentTerms(t));
  const avgLen = docs.reduce((a, d) => a + d.length, 0) / docs.length || 1;
  const df = new Map(qTerms.map((t) => [t, docs.filter((d) => d.includes(t)).length]));
  const idfs = new Map(qTerms.map((t) => [t, idf(docs.length, df.get(t)!)]));
  return docs.map((d) => {
    let score = 0;
    for (const t of qTerms) {
      const f = d.filter((x) => x === t).length;
      if (f) score += idfs.get(t)! * tfNorm(f, 0, d.length, avgLen, OKAPI_BM25);
    }
    return score;
  });
}

/**
 * One ranking of store chunks and web results, scored the way a store search scores its candidates
 * (`ranking.ts`): a lexical list and a dense list, fused with the configured method and weights.
 * - lexical: BM25 of the query over the whole candidate set (the store's lexical and dense candidates
 *   and the web results together), so a store chunk and a web snippet are scored by one formula with
 *   one set of statistics (the index's own BM25 is left aside: its statistics are the store's, which
 *   a web snippet has no place in);
 * - dense: cosine similarity with the query's embedding: the index's for store chunks, the same
 *   embedder's vectors of the web texts (title and snippet) for web results; a web result without a
 *   vector (its embedding failed) is in the lexical list only, as a store chunk the dense search did
 *   not return.
 * Then `fuse`: in [0, 1] and comparable across both kinds. Web results come out with their rank in
 * the merged web list as first-stage position and no first-stage source.
 */
export function jointRanking(
  query: string,
  queryVector: Float32Array | null,
  store: { lexical: ScoredChunk[]; dense: ScoredChunk[] },
  web: { chunks: ScoredChunk[]; vectors: Float32Array[] | null },
  options: { method: FusionMethod; lexicalWeight: number },
): RankedChunk[] {
  const all = new Map<string, ScoredChunk>();
  for (const c of [...store.lexical, ...store.dense, ...web.chunks]) if (!all.has(chunkKey(c))) all.set(chunkKey(c), c);
  const candidates = [...all.values()];
  const bm25 = candidateBm25(
    query,
    candidates.map((c) => c.text),
  );
  const lexical = candidates
    .map((c, i) => ({ ...c, score: bm25[i] }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score);
  const webDense =
    queryVector && web.vectors ? web.chunks.map((c, i) => ({ ...c, score: cosine(queryVector, web.vectors![i]) })) : [];
  const dense = [...(queryVector ? store.dense : []), ...webDense].sort((a, b) => b.score - a.score);
  const fused = fuse(lexical, dense, options);
  const lexRank = new Map(store.lexical.map((c, i) => [chunkKey(c), i]));
  const denseRank = new Map(store.dense.map((c, i) => [chunkKey(c), i]));
  const webRank = new Map(web.chunks.map((c, i) => [chunkKey(c), i]));
  const ranked: RankedChunk[] = fused.map((c) => {
    const k = chunkKey(c);
    const w = webRank.get(k);
    if (w !== undefined) return { ...c, firstStagePosition: w, firstStageSource: null };
    const l = lexRank.get(k);
    const d = denseRank.get(k);
    return {
      ...c,
      firstStagePosition: Math.min(l ?? Infinity, d ?? Infinity),
      firstStageSource: l !== undefined && d !== undefined ? 'both' : l !== undefined ? 'sparse' : 'dense',
    };
  });
  // a candidate neither list scored (no query term, no vector) still belongs to the set, last
  const seen = new Set(ranked.map(chunkKey));
  for (const c of candidates)
    if (!seen.has(chunkKey(c)))
      ranked.push({ ...c, score: 0, firstStagePosition: webRank.get(chunkKey(c)) ?? null, firstStageSource: null });
  return ranked;
}

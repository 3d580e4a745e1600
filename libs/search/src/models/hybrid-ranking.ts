import type { Embedder } from '@larder/ai';
import type { ScoredChunk } from '@larder/chunk-index';
import { fuse, FusionMethod } from '../ranking';
import { cosineSimilarity as cosine } from '@larder/ai';
import { candidateBm25 } from '../web/joint-ranking';

const str = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** The value at a dotted path of an object (`meta.title`), or undefined. */
function at(doc: Record<string, unknown>, path: string): unknown {
  if (path in doc) return doc[path];
  let cur: unknown = doc;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * The text a reranking model reads of one `input` item: a string as it is; an object as
 * `field: value` lines of its `rank_fields` in their order (dots reach into nested objects; a field
 * it lacks is left out), or of all its fields without `rank_fields`; a list as JSON.
 */
export function documentText(doc: unknown, rankFields: string[] | null): string {
  if (typeof doc === 'string') return doc;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return str(doc);
  const o = doc as Record<string, unknown>;
  const fields = rankFields ?? Object.keys(o);
  return fields
    .map((f) => [f, at(o, f)] as const)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([f, v]) => `${f}: ${str(v)}`)
    .join('\n');
}

export interface HybridRankingOptions {
  method: FusionMethod;
  lexicalWeight: number;
}

/**
 * Relevance of each document to the query without a cross-encoder, with what Larder has, scored the
 * way a store search scores its candidates (and the web store its results):
 * - lexical: BM25 (k1 1.2, b 0.75) of the query's stemmed content words over the documents sent,
 *   their statistics taken over that set;
 * - dense: cosine similarity of the query's embedding (as a query, with the configured query prefix)
 *   and each document's, by the configured embedding model;
 * then the two lists fused as the search fuses them (`relative`: min-max normalised, weighted by
 * `LARDER_RERANK_LEXICAL_WEIGHT`) into one score in [0, 1]. A document neither list scores gets 0. Scores rank documents of one
 * request; they are not probabilities and do not compare across requests.
 */
export async function hybridScores(
  embedder: Embedder,
  query: string,
  texts: string[],
  options: HybridRankingOptions,
): Promise<number[]> {
  const [queryVectors, docVectors] = await Promise.all([
    embedder.embed([query], 'query'),
    embedder.embed(texts, 'document'),
  ]);
  return fusedScores(candidateBm25(query, texts), queryVectors[0], docVectors, options);
}

/** The fusion of per-document BM25 scores and embeddings (exported for the benchmark's variants). */
export function fusedScores(
  bm25: number[],
  queryVector: Float32Array | null,
  docVectors: Float32Array[] | null,
  options: HybridRankingOptions,
): number[] {
  // `fuse` ranks chunks; each document stands in as chunk `i` of one file, so ties keep the input order
  const asChunk = (i: number, score: number) =>
    ({ storeId: '', fileId: '', chunkIndex: i, score }) as unknown as ScoredChunk;
  const lexical = bm25
    .map((s, i) => asChunk(i, s))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.chunkIndex - b.chunkIndex);
  const dense =
    queryVector && docVectors
      ? docVectors
          .map((v, i) => asChunk(i, cosine(queryVector, v)))
          .sort((a, b) => b.score - a.score || a.chunkIndex - b.chunkIndex)
      : [];
  const scores = new Array<number>(bm25.length).fill(0);
  for (const c of fuse(lexical, dense, options)) scores[c.chunkIndex] = c.score;
  return scores;
}

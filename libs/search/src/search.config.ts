import type { FusionMethod } from './ranking';

export interface SearchConfig {
  fusion: FusionMethod;
  /** Weight of the lexical list in the fusion (the dense list gets the rest). */
  lexicalWeight: number;
  /** Candidates taken from each retriever: max(top_k × this, 50). */
  candidateFactor: number;
  /** list-chunks with `sort_by` sorts at most this many chunks (400 beyond: narrow it with filters or file_ids). */
  maxSortScan: number;
  /** Weight of the lexical list in the hybrid reranking of `POST /v1/reranking` (default: `lexicalWeight`). */
  rerankLexicalWeight?: number;
  /** Results asked of each web search provider for a search naming `mixedbread/web` (default 20). */
  webMaxResults?: number;
  /** Where request records are journaled until stored (ActivityJournal); unset: in memory only. */
  activityJournalDir?: string | null;
}
export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');

/**
 * Milliseconds per step of a request, reported in the Server-Timing header. A search's: `embed` (the
 * query's embedding, beside the lookup of stores and rules: `stores_and_rules`), `lexical` (the BM25
 * search, in the embedded index's read worker, beside the embedding and the dense search), `embed_wait`
 * (the embedding still running once the stores were looked up), `dense`, `lexical_wait` (the lexical
 * search still running once the dense one was done), `hydrate` (the answer's chunks read from the
 * index), `rerank` where a reranker runs, `search` (the query handler) and `total` (from the request's
 * first middleware to its JSON body). `total` less `embed`, `dense`, `lexical_wait`, `hydrate` and
 * `rerank` is the API's own time on the request (bench/support.ts `ownTime`; with `embed_wait` for
 * `embed`, its stricter critical-path form).
 */
export type Timing = Record<string, number>;

/** `Server-Timing` header value of a timing record. */
export const serverTiming = (t: Timing) =>
  Object.entries(t)
    .map(([k, v]) => `${k};dur=${v.toFixed(2)}`)
    .join(', ');

/** Round-robin over per-store lists in request order, up to `limit`. */
export function interleave<T>(lists: T[][], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (i < l.length && out.length < limit) out.push(l[i]);
  }
  return out;
}

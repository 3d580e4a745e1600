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
  /** Bytes the cache of recent query embeddings holds at most (their vectors and queries; default DEFAULT_QUERY_CACHE_BYTES; 0: none kept). */
  queryCacheBytes?: number;
  /** Where request records are journaled until stored (ActivityJournal); unset: in memory only. */
  activityJournalDir?: string | null;
  /** Search admission (SearchAdmission); unset: two searches per core at once, 256 waiting, no limit on a wait. */
  admission?: AdmissionLimits;
}

/** How many searches run at once, how many may wait, and for how long. */
export interface AdmissionLimits {
  /** Searches running at once in this process. */
  concurrency: number;
  /** Searches waiting for a turn; one more is refused (503). */
  queue: number;
  /** A search that waited this long for its turn is refused (503); 0: no limit. */
  queueWaitMs: number;
}
export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');
/** The cache of recent query embeddings' bound: 8 MiB, ~3,700 queries of a 512-dimension model. */
export const DEFAULT_QUERY_CACHE_BYTES = 8 * 2 ** 20;

/** Round-robin over per-store lists in request order, up to `limit`. */
export function interleave<T>(lists: T[][], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (i < l.length && out.length < limit) out.push(l[i]);
  }
  return out;
}

import type { FusionMethod } from './ranking';

export interface SearchConfig {
  fusion: FusionMethod;
  /** Weight of the lexical list in the fusion (the dense list gets the rest). */
  lexicalWeight: number;
  /** Candidates taken from each retriever: `candidateWindow(top_k, this)`. */
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

/**
 * The candidates each retriever gives a search of `topK` results before fusion: `topK × factor` while
 * that is at most `20 × factor` more than `topK` (top_k ≤ 25 at the default factor 5), then `topK + 20 ×
 * factor` (the window grows with top_k, the margin beyond it does not); at least `floor`. The default
 * factor gives 50 for top_k 10, 125 for 25, 200 for 100 and 1,100 for 1,000.
 */
export function candidateWindow(topK: number, factor: number, floor = 50): number {
  return Math.max(floor, Math.min(topK * factor, topK + CANDIDATE_MARGIN * factor));
}
/** The margin beyond top_k of `candidateWindow`, in units of the candidate factor. */
const CANDIDATE_MARGIN = 20;

/** Round-robin over per-store lists in request order, up to `limit`. */
export function interleave<T>(lists: T[][], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (i < l.length && out.length < limit) out.push(l[i]);
  }
  return out;
}

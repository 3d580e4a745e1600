/** One returned chunk, as activity events record it (contract §11.1 StoreSearchEventResult). */
export interface SearchEventResult {
  store_id: string;
  file_id: string;
  filename: string;
  chunk_index: number;
  score: number;
  first_stage_position: number | null;
  first_stage_source: 'dense' | 'sparse' | 'both' | null;
}

/** A search was answered (appended off the request path to `search_activity-<org>`). */
export interface StoreSearchPerformed {
  type: 'StoreSearchPerformed';
  data: {
    searchId: string;
    organizationId: string;
    apiKeyId: string;
    storeIds: string[];
    query: string;
    rewrittenQuery: string | null;
    rerank: boolean;
    filters: unknown;
    topK: number;
    results: SearchEventResult[];
    searchTimeMs: number;
    at: string;
  };
}

/** A grep was answered. */
export interface StoreGrepPerformed {
  type: 'StoreGrepPerformed';
  data: {
    searchId: string;
    organizationId: string;
    apiKeyId: string;
    storeIds: string[];
    pattern: string;
    caseSensitive: boolean;
    filters: unknown;
    topK: number;
    results: SearchEventResult[];
    searchTimeMs: number;
    at: string;
  };
}

/**
 * Chunks were listed (list-chunks) or counted (metadata facets). Public activity shows it as a
 * `search` event (its `query` is null for a listing); it is not billed as a search.
 */
export interface StoreChunksListed {
  type: 'StoreChunksListed';
  data: {
    searchId: string;
    organizationId: string;
    apiKeyId: string;
    storeIds: string[];
    operation: 'list_chunks' | 'metadata_facets';
    query: string | null;
    filters: unknown;
    topK: number;
    results: SearchEventResult[];
    searchTimeMs: number;
    at: string;
  };
}

export type SearchActivityEvent = StoreSearchPerformed | StoreGrepPerformed | StoreChunksListed;
export const SEARCH_ACTIVITY_EVENT_TYPES = ['StoreSearchPerformed', 'StoreGrepPerformed', 'StoreChunksListed'] as const;

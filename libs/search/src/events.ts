import { isoDuration } from '@larder/kernel';
import type { ToolCallLink } from '@larder/kernel';

/** One returned chunk, as activity events record it (`StoreSearchEventResult`). */
export interface SearchEventResult {
  store_id: string;
  file_id: string;
  filename: string;
  chunk_index: number;
  score: number;
  first_stage_position: number | null;
  first_stage_source: 'dense' | 'sparse' | 'both' | null;
}

/**
 * One returned chunk as an event records it: `[store, file_id, filename, chunk_index, score,
 * first_stage_position, first_stage_source]`, where `store` is the chunk's store as an index into the
 * event's `storeIds` (its id where it is none of them). A search of 100 results writes this about 2.3
 * times smaller than the objects the activity API lists, and it is written, read and copied several
 * times on its way to the activity listing (the search event, its activity event, the listing's row).
 */
export type RecordedResult = [
  store: number | string,
  fileId: string,
  filename: string,
  chunkIndex: number,
  score: number,
  firstStagePosition: number | null,
  firstStageSource: SearchEventResult['first_stage_source'],
];

/** The results an event holds: recorded tuples, or (events written before them) the objects themselves. */
export type RecordedResults = RecordedResult[] | SearchEventResult[];

/** An event's results as the activity API lists them (`store_ids`: the event's stores, which `store` indexes). */
export function eventResults(results: RecordedResults | undefined, storeIds: readonly string[]): SearchEventResult[] {
  if (!results) return [];
  return results.map((r) =>
    Array.isArray(r)
      ? {
          store_id: typeof r[0] === 'number' ? (storeIds[r[0]] ?? '') : r[0],
          file_id: r[1],
          filename: r[2],
          chunk_index: r[3],
          score: r[4],
          first_stage_position: r[5],
          first_stage_source: r[6],
        }
      : r,
  );
}

/**
 * What every search activity event records (`SearchActivity.common`): who asked, over which stores,
 * with which filters, what came back (the first 100 results, `RecordedResult`), how fast, and when.
 */
export type SearchActivityCommon = {
  searchId: string;
  organizationId: string;
  apiKeyId: string;
  storeIds: string[];
  filters: unknown;
  topK: number;
  results: RecordedResults;
  searchTimeMs: number;
  at: string;
  /** The chat completion tool call this ran for (a hosted tool, or a redeemed tool ticket): billed at the agent rate. */
  toolCall?: ToolCallLink;
};

/** A search was answered (appended off the request path to `search_activity-<org>`). */
export interface StoreSearchPerformed {
  type: 'StoreSearchPerformed';
  data: SearchActivityCommon & {
    /** The query's text; null for an embedding query (events carry no vectors: `queryDimensions` says how long it was). */
    query: string | null;
    queryDimensions?: number;
    rewrittenQuery: string | null;
    /** The model that rewrote the query (OpenAI's `rewrite_query`), and its tokens (metered as model tokens). Absent otherwise. */
    rewriteModel?: string;
    tokenUsage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    rerank: boolean;
    /** Present when the search named the web store (`mixedbread/web`, not in `storeIds`). */
    web?: WebSearchRecorded;
  };
}

/**
 * The web part of a search: the configured providers, those that answered, those that failed and
 * how (`timeout`, `unavailable`, `refused`, `too_large`, `bad_response`), how many web results were
 * ranked, and whether it was skipped (`no_provider`, `all_failed`). Never a key or an upstream message.
 */
export interface WebSearchRecorded {
  providers: string[];
  answered: string[];
  failed: Array<{ provider: string; kind: string }>;
  results: number;
  skipped: 'no_provider' | 'all_failed' | null;
}

/** A grep was answered. */
export interface StoreGrepPerformed {
  type: 'StoreGrepPerformed';
  data: SearchActivityCommon & {
    pattern: string;
    caseSensitive: boolean;
    /** The chat completion tool call this ran for (a hosted tool, or a redeemed tool ticket): billed at the agent rate. */
    toolCall?: ToolCallLink;
  };
}

/**
 * Chunks were listed (list-chunks) or counted (metadata facets). Kept in the log for inspection; it
 * is no search: no public activity event and not billed.
 */
export interface StoreChunksListed {
  type: 'StoreChunksListed';
  data: SearchActivityCommon & {
    operation: 'list_chunks' | 'metadata_facets';
    query: string | null;
    /** The chat completion tool call this ran for (a hosted tool, or a redeemed tool ticket): billed at the agent rate. */
    toolCall?: ToolCallLink;
  };
}

/** Tokens a model used (zero without one). */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One tool invocation of an agentic run (`AgenticToolCall`; the duration in milliseconds). */
export interface AgenticToolCallRecorded {
  tool_call_id: string;
  tool_name: string;
  tool_type: 'function' | 'extension' | 'datastore';
  started_at: string;
  duration_ms: number;
  arguments: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: string | null;
}

/** `AgenticToolCall` as the API shows it: the duration as an ISO 8601 duration. */
export const publicToolCall = ({ duration_ms, ...c }: AgenticToolCallRecorded) => ({
  ...c,
  duration: isoDuration(duration_ms),
});

/** An agentic search was answered (`StoreAgenticSearchEvent`). */
export interface StoreAgenticSearchPerformed {
  type: 'StoreAgenticSearchPerformed';
  data: SearchActivityCommon & {
    query: string;
    instructions: string | null;
    /** The planner: the configured model, or `larder-feedback-planner`. */
    model: string;
    rankingStrategy: string;
    roundsExecuted: number;
    tokenUsage: TokenUsage;
    toolCalls: AgenticToolCallRecorded[];
    startedAt: string;
    web?: WebSearchRecorded;
  };
}

/** A question was answered (one per request; its retrieval is part of it, not a separate search). */
export interface StoreQuestionAnswered {
  type: 'StoreQuestionAnswered';
  data: SearchActivityCommon & {
    query: string;
    instructions: string | null;
    /** The model that wrote the answer, or `larder-extractive` without one. */
    model: string;
    mode: 'llm' | 'extractive';
    /** The answer's first characters (the event keeps at most 4000). */
    answer: string;
    /** Source indices the answer cites. */
    citations: number[];
    agentic: boolean;
    tokenUsage: TokenUsage;
    web?: WebSearchRecorded;
    /**
     * When the run started, and its steps in order: the retrieval (`store_search`, or an agentic
     * search's tool calls and planner turns) and the answer's model turn (`generation`, with its
     * usage). Recorded since trace export; absent in older events.
     */
    startedAt?: string;
    toolCalls?: AgenticToolCallRecorded[];
  };
}

/**
 * One chat completion request was answered (one per request, whatever its turns with the model):
 * the `completion` activity event. Field names follow the agentic search event and OpenTelemetry's
 * GenAI conventions (`gen_ai.request.model`, `gen_ai.response.finish_reasons`, `gen_ai.usage.*`).
 */
export interface ChatCompletionCreated {
  type: 'ChatCompletionCreated';
  data: {
    completionId: string;
    organizationId: string;
    apiKeyId: string;
    /** The route that answered: a chat completion (absent, or `chat.completions`) or a Responses API call. */
    endpoint?: 'chat.completions' | 'responses';
    /** Stores the hosted tools touched (may be empty). */
    storeIds: string[];
    rootCompletionId: string;
    previousCompletionId: string | null;
    /** The model asked (`gen_ai.request.model`) and the one the server says answered (`gen_ai.response.model`). */
    model: string;
    responseModel: string;
    /** Messages the model saw on its first call (history included). */
    messagesCount: number;
    /** `client_disconnected`: the client hung up; the rest of the record is what was done until then. */
    finishReason: 'stop' | 'tool_calls' | 'length' | 'client_disconnected';
    stream: boolean;
    stored: boolean;
    /** Model calls (`generation`) and hosted tool calls, in order. */
    toolCalls: AgenticToolCallRecorded[];
    /** Client function tool calls returned to the caller (each with a tool ticket). */
    clientToolCalls: string[];
    tokenUsage: TokenUsage;
    startedAt: string;
    /** Until the answer was complete, and until its first content token (null: none). */
    completionTimeMs: number;
    timeToFirstTokenMs: number | null;
    metadata: Record<string, string> | null;
    /** The conversation's title (its first user message, cut), the last user message and the answer, each bounded. */
    title?: string | null;
    userMessage?: string | null;
    answer?: string | null;
    at: string;
  };
}

/**
 * An embeddings request was answered (`POST /v1/embeddings`, one per request): who asked, the model
 * that answered and the name the request used for it (itself, an alias or `default`), how many
 * inputs, in which shape, and the tokens. Never a text or a vector.
 */
export interface EmbeddingsCreated {
  type: 'EmbeddingsCreated';
  data: {
    requestId: string;
    organizationId: string;
    apiKeyId: string;
    model: string;
    requestedModel: string;
    inputs: number;
    /** Of the vectors returned (the model's, or fewer when `dimensions` asked for a truncation). */
    dimensions: number;
    encodingFormats: string[];
    normalized: boolean;
    tokenUsage: TokenUsage;
    durationMs: number;
    at: string;
  };
}

/**
 * A reranking request was answered (`POST /v1/reranking`, one per request): the model that ranked
 * (a cross-encoder, or the hybrid lexical + embedding ranking), how many documents, how many
 * returned, the tokens. Never the query or a document.
 */
export interface DocumentsReranked {
  type: 'DocumentsReranked';
  data: {
    requestId: string;
    organizationId: string;
    apiKeyId: string;
    model: string;
    requestedModel: string | null;
    method: 'cross_encoder' | 'hybrid';
    documents: number;
    /** As asked (null: all). */
    topK: number | null;
    returned: number;
    tokenUsage: TokenUsage;
    durationMs: number;
    at: string;
  };
}

export type SearchActivityEvent =
  | StoreSearchPerformed
  | StoreGrepPerformed
  | StoreChunksListed
  | StoreAgenticSearchPerformed
  | StoreQuestionAnswered
  | ChatCompletionCreated
  | EmbeddingsCreated
  | DocumentsReranked;
export const SEARCH_ACTIVITY_EVENT_TYPES = [
  'StoreSearchPerformed',
  'StoreGrepPerformed',
  'StoreChunksListed',
  'StoreAgenticSearchPerformed',
  'StoreQuestionAnswered',
  'ChatCompletionCreated',
  'EmbeddingsCreated',
  'DocumentsReranked',
] as const;

/**
 * The hosted tools a chat completion or response may declare: their types and aliases, a declaration
 * as the caller made it, a call's outcome, and the function each is shown to the model as.
 */
import { CONDITION_OPERATORS, type FilterNode } from '@larder/kernel';
import type { LlmTool } from '@larder/ai';
import type { AgenticToolCallRecorded } from '../events';

/** Hosted tool types a request may declare: the store tools and their older aliases. */
export const HOSTED_TOOL_TYPES = [
  'store_search',
  'store_grep',
  'store_list_chunks',
  'store_metadata_facets',
  'list_stores',
  'search_corpus',
  'grep',
  'get_chunks',
  'filter_chunks',
  'inspect_metadata',
] as const;
/** The chat hosted tools, and the Responses API's `file_search` (a store search over vector stores). */
export type HostedToolType = (typeof HOSTED_TOOL_TYPES)[number] | 'file_search';

/** What a hosted tool does: aliases run the store tool they stand for. */
export type HostedKind =
  'store_search' | 'store_grep' | 'store_list_chunks' | 'store_metadata_facets' | 'list_stores' | 'get_chunks';

const ALIASES: Partial<Record<HostedToolType, HostedKind>> = {
  file_search: 'store_search',
  search_corpus: 'store_search',
  grep: 'store_grep',
  filter_chunks: 'store_list_chunks',
  inspect_metadata: 'store_metadata_facets',
};
export const hostedKind = (t: HostedToolType): HostedKind => ALIASES[t] ?? (t as HostedKind);

/** A hosted tool as the caller declared it: what it may touch is fixed here; the model sets only the arguments of its schema. */
export interface HostedToolDecl {
  type: HostedToolType;
  kind: HostedKind;
  /** The function name the model calls it by (the type; `<type>_2`, … when declared again). */
  name: string;
  /** null: every store of the organization the key may search (the first 16). */
  storeIdentifiers: string[] | null;
  rawFilters: unknown;
  /** Filters already parsed (the Responses API's attribute filters), combined with the model's. */
  filter?: FilterNode | null;
  /** The model's default `top_k` (10 where not set). */
  topK?: number;
  scoreThreshold: number;
  citations: boolean;
  /** list_stores: stores listed. */
  limit: number;
}

/** One hosted tool call, done: what the response reports, what the model reads, what the event records. */
export interface HostedToolOutcome {
  item: Record<string, unknown>;
  /** The tool message the model reads (numbered passages, or JSON). */
  content: string;
  record: AgenticToolCallRecorded;
  storeIds: string[];
}

export const MAX_TOP_K = 50;

const metadataFilterSchema = {
  type: 'array',
  description: 'Optional metadata conditions, combined with filter_mode.',
  items: {
    type: 'object',
    properties: {
      key: { type: 'string', description: 'metadata field (dot path); generated_metadata.* for chunk metadata' },
      operator: {
        type: 'string',
        enum: [...CONDITION_OPERATORS],
      },
      value: {},
    },
    required: ['key', 'operator', 'value'],
  },
};
const filterMode = { type: 'string', enum: ['all', 'any'], description: 'How metadata_filters combine (default all).' };
const topK = { type: 'integer', minimum: 1, maximum: MAX_TOP_K, description: 'Number of results (default 10).' };

/** The function the model sees for a hosted tool: its name, what it does, the arguments the model may set. */
export function hostedToolFunction(d: HostedToolDecl, storeNames: string): LlmTool {
  const over = d.storeIdentifiers ? `the stores ${storeNames}` : "the user's stores";
  const fn = (description: string, properties: Record<string, unknown>, required: string[] = []): LlmTool => ({
    type: 'function',
    function: {
      name: d.name,
      description,
      parameters: { type: 'object', properties, required, additionalProperties: false },
    },
  });
  switch (d.kind) {
    case 'store_search':
      return fn(
        `Semantic and keyword search over ${over}. Returns numbered passages.`,
        {
          query: { type: 'string', description: 'What to search for.' },
          top_k: topK,
          metadata_filters: metadataFilterSchema,
          filter_mode: filterMode,
        },
        ['query'],
      );
    case 'store_grep':
      return fn(
        `Regular expression (RE2) search over the text of ${over}. Returns numbered passages that match.`,
        {
          pattern: { type: 'string', description: 'RE2 regular expression.' },
          case_sensitive: { type: 'boolean' },
          top_k: topK,
          metadata_filters: metadataFilterSchema,
          filter_mode: filterMode,
        },
        ['pattern'],
      );
    case 'store_list_chunks':
      return fn(
        `List passages of ${over} by metadata, optionally ordered by a metadata field. Returns numbered passages.`,
        {
          metadata_filters: metadataFilterSchema,
          filter_mode: filterMode,
          rank_by: { type: 'string', description: 'Metadata field to order by.' },
          direction: { type: 'string', enum: ['asc', 'desc'] },
          top_k: topK,
        },
      );
    case 'store_metadata_facets':
      return fn(`The metadata fields of ${over} with their most frequent values and counts.`, {
        query: { type: 'string', description: 'Optional query that scopes the facets.' },
        facets: { type: 'array', items: { type: 'string' } },
      });
    case 'get_chunks':
      return fn(
        `Read passages of ${over} by chunk id ("<file_id>:<chunk_index>"). Returns numbered passages.`,
        { chunk_ids: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 20 } },
        ['chunk_ids'],
      );
    case 'list_stores':
      return fn("List the user's stores (names and descriptions).", {});
  }
}

/**
 * The hand-written request bodies of searching stores: filters, search options, search, file search,
 * question answering, grep, chunk listing, metadata facets and search rules.
 */

import { CONDITION_OPERATORS } from '@larder/kernel';

const filter = {
  description:
    'A condition, a group (all / any / none, nestable) or a list of either (= all). Unprefixed keys address file metadata; generated_metadata.* the chunk metadata.',
  oneOf: [
    { $ref: '#/components/schemas/SearchFilter' },
    { $ref: '#/components/schemas/SearchFilterCondition' },
    {
      type: 'array',
      items: {
        oneOf: [{ $ref: '#/components/schemas/SearchFilter' }, { $ref: '#/components/schemas/SearchFilterCondition' }],
      },
    },
    { type: 'null' },
  ],
};
const common = {
  store_identifiers: {
    type: 'array',
    items: { type: 'string' },
    minItems: 1,
    maxItems: 16,
    description: 'stores by id or name',
  },
  top_k: {
    type: 'integer',
    minimum: 1,
    default: 10,
    description: 'no maximum; one request answers at most 1,000 results',
  },
  filters: filter,
  file_ids: {
    description: 'a list of file ids, or [operator, [file ids]] with in / not_in / eq / not_eq',
    type: 'array',
  },
};

/** The bodies of searches over stores and of search rules. */
export const SEARCH_REQUESTS: Record<string, unknown> = {
  SearchFilterCondition: {
    type: 'object',
    required: ['key', 'operator', 'value'],
    properties: { key: { type: 'string' }, operator: { enum: [...CONDITION_OPERATORS] }, value: {} },
  },
  SearchFilter: {
    type: 'object',
    properties: Object.fromEntries(
      ['all', 'any', 'none'].map((k) => [
        k,
        {
          type: ['array', 'null'],
          items: {
            oneOf: [
              { $ref: '#/components/schemas/SearchFilter' },
              { $ref: '#/components/schemas/SearchFilterCondition' },
            ],
          },
        },
      ]),
    ),
  },
  StoreChunkSearchOptions: {
    type: 'object',
    properties: {
      score_threshold: { type: 'number', minimum: 0, maximum: 1, default: 0 },
      rewrite_query: { type: 'boolean', default: false },
      rerank: {
        oneOf: [
          { type: 'boolean' },
          {
            type: 'object',
            properties: {
              model: { type: 'string' },
              with_metadata: { oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string' } }] },
              top_k: { type: ['integer', 'null'], minimum: 1 },
            },
          },
          { type: 'null' },
        ],
      },
      return_metadata: { type: 'boolean', default: true },
      apply_search_rules: { type: 'boolean', default: true },
      agentic: { oneOf: [{ type: 'boolean' }, { $ref: '#/components/schemas/AgenticSearchConfig' }, { type: 'null' }] },
    },
  },
  AgenticSearchConfig: {
    type: 'object',
    properties: {
      max_rounds: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
      queries_per_round: { type: 'integer', minimum: 1, maximum: 10, default: 4 },
      results_per_query: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 100,
        description: 'results each query retrieves; default max(top_k, 20)',
      },
      strict_top_k: { type: 'boolean', default: false },
      media_content: { enum: ['auto', 'never', 'always'], default: 'auto' },
      instructions: { type: ['string', 'null'], minLength: 1, maxLength: 5000 },
      verbose: { type: 'boolean', default: false, description: 'adds `trace` (the tool calls) to the response' },
    },
  },
  StoreQuestionAnsweringParams: {
    type: 'object',
    required: ['query', 'store_identifiers'],
    properties: {
      query: { type: 'string', minLength: 1 },
      ...common,
      search_options: { $ref: '#/components/schemas/StoreChunkSearchOptions' },
      instructions: { type: ['string', 'null'], minLength: 1, maxLength: 8000 },
      qa_options: {
        type: ['object', 'null'],
        properties: { cite: { type: 'boolean', default: true }, multimodal: { type: 'boolean', default: true } },
      },
      stream: {
        type: 'boolean',
        default: false,
        description: 'server-sent events: qa.sources, qa.answer.delta…, qa.completed, [DONE]',
      },
    },
  },
  StoreSearchParams: {
    type: 'object',
    required: ['query', 'store_identifiers'],
    properties: {
      query: {
        oneOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'object',
            required: ['text'],
            properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1, maxLength: 65536 } },
          },
        ],
      },
      ...common,
      search_options: { $ref: '#/components/schemas/StoreChunkSearchOptions' },
      stream: {
        type: 'boolean',
        default: false,
        description: 'server-sent events: agentic trace events, search.completed, [DONE]',
      },
    },
  },
  StoreGrepParams: {
    type: 'object',
    required: ['pattern', 'store_identifiers'],
    properties: {
      pattern: { type: 'string', minLength: 1, maxLength: 1024, description: 'RE2 regular expression' },
      ...common,
      targets: { type: 'array', items: { enum: ['text', 'generated'] }, minItems: 1 },
      case_sensitive: { type: 'boolean', default: false },
      return_metadata: { type: 'boolean', default: true },
    },
  },
  StoreListChunksParams: {
    type: 'object',
    required: ['store_identifiers'],
    properties: {
      ...common,
      sort_by: {
        oneOf: [
          { type: 'string' },
          { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] },
          { type: 'null' },
        ],
      },
      search_options: { $ref: '#/components/schemas/StoreChunkSearchOptions' },
    },
  },
  StoreMetadataFacetsParams: {
    type: 'object',
    required: ['store_identifiers'],
    properties: {
      ...common,
      query: { type: ['string', 'null'], minLength: 1 },
      facets: { type: ['array', 'null'], items: { type: 'string' } },
      max_fields: { type: 'integer', minimum: 1, maximum: 256, default: 64 },
      max_values_per_field: { type: 'integer', minimum: 1, maximum: 256, default: 32 },
      max_files: { type: 'integer', minimum: 1, maximum: 100000, default: 10000 },
      search_options: { $ref: '#/components/schemas/StoreChunkSearchOptions' },
    },
  },
  SearchRuleCreateParams: {
    type: 'object',
    required: ['query', 'rules'],
    properties: {
      query: { type: 'string', minLength: 1 },
      rules: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type'],
          properties: { type: { enum: ['query_string', 'query_regex', 'chunk_search_result', 'file_search_result'] } },
        },
      },
    },
  },
};

/** File search (`POST /v1/stores/files/search`): a search's body, its `search_options` with `return_chunks` and `chunks_per_file`. */
const searchBody = SEARCH_REQUESTS.StoreSearchParams as { properties: Record<string, unknown> };
export const FILE_SEARCH_REQUESTS: Record<string, unknown> = {
  StoreFileSearchOptions: {
    type: 'object',
    properties: {
      // a file search is always the hybrid search (agentic is accepted and ignored)
      ...Object.fromEntries(
        Object.entries(
          (SEARCH_REQUESTS.StoreChunkSearchOptions as { properties: Record<string, unknown> }).properties,
        ).filter(([k]) => k !== 'agentic'),
      ),
      return_chunks: { type: 'boolean', default: true, description: 'each file with its best chunks (null otherwise)' },
      chunks_per_file: { type: 'integer', minimum: 0, maximum: 100, default: 3 },
    },
  },
  StoreFileSearchParams: {
    type: 'object',
    required: ['query', 'store_identifiers'],
    // answered as JSON (`stream` is accepted and ignored)
    properties: {
      ...Object.fromEntries(Object.entries(searchBody.properties).filter(([k]) => k !== 'stream')),
      search_options: { $ref: '#/components/schemas/StoreFileSearchOptions' },
    },
  },
};

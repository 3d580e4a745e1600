/**
 * The request bodies the OpenAPI document describes by hand: the unions the DTOs' generated schemas cannot
 * express (filters, file_ids, query, rerank, rules, credentials), and the multipart forms.
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

/** Request bodies whose unions (filters, file_ids, query, rerank, rules) the DTOs' generated schemas cannot express, described here. */
export const HAND_WRITTEN: Record<string, unknown> = {
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

const textInput = {
  type: 'object',
  required: ['text'],
  properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1 } },
};
const encodingFormat = { enum: ['float', 'float16', 'base64', 'binary', 'ubinary', 'int8', 'uint8'] };
/** `POST /v1/embeddings`: Mixedbread's body (`model`, `input`, `dimensions`, `prompt`, `normalized`, `encoding_format`, `truncation_strategy`) and OpenAI's (`input`, `model`, `encoding_format`, `dimensions`, `user`). */
HAND_WRITTEN.EmbeddingCreateParams = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'a served model (GET /v1/models), an alias of one (LARDER_MODEL_ALIASES), or "default"',
    },
    input: {
      oneOf: [
        { type: 'string', minLength: 1, maxLength: 64000 },
        textInput,
        {
          type: 'array',
          minItems: 1,
          maxItems: 2048,
          items: { oneOf: [{ type: 'string', minLength: 1, maxLength: 64000 }, textInput] },
        },
      ],
    },
    dimensions: {
      type: ['integer', 'null'],
      minimum: 1,
      description: "keep the first n values (at most the model's), renormalized when `normalized`",
    },
    prompt: { type: ['string', 'null'], minLength: 1, maxLength: 32000, description: 'prepended to every input' },
    normalized: { type: ['boolean', 'null'], default: true },
    normalize: {
      type: ['boolean', 'null'],
      description: 'the same as `normalized` (the Vercel AI provider sends this name)',
    },
    encoding_format: {
      oneOf: [encodingFormat, { type: 'array', minItems: 1, items: encodingFormat }, { type: 'null' }],
      default: 'float',
      description: 'several formats → `embedding_dict` items',
    },
    truncation_strategy: { oneOf: [{ enum: ['start', 'end', 'none'] }, { type: 'null' }], default: 'end' },
    user: { type: ['string', 'null'], description: "OpenAI's end-user id: accepted, not stored" },
  },
};
/** `POST /v1/reranking`: a query, the documents to order, `top_k`, `return_input`. */
HAND_WRITTEN.RerankParams = {
  type: 'object',
  required: ['query', 'input'],
  properties: {
    model: {
      type: ['string', 'null'],
      default: 'default',
      description: 'a served reranking model, an alias of one, or "default"',
    },
    query: { oneOf: [{ type: 'string', minLength: 1, maxLength: 32000 }, textInput] },
    input: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: { oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }] },
    },
    rank_fields: {
      type: ['array', 'null'],
      items: { type: 'string', minLength: 1 },
      description: 'fields of object inputs to rank on (dots reach into nested objects)',
    },
    top_k: { type: ['integer', 'null'], minimum: -1, description: 'how many results; omitted, null or -1: all' },
    return_input: { type: ['boolean', 'null'], default: false },
    rewrite_query: { type: ['boolean', 'null'], enum: [false, null], default: false },
  },
};
/** Buckets: `credentials` is a union discriminated by `type` (the DTO leaves it to the writer, which never echoes it). */
const bucketCredentials = {
  oneOf: [
    {
      type: 'object',
      required: ['role_arn'],
      properties: {
        type: { const: 'assume_role', default: 'assume_role' },
        role_arn: { type: 'string', minLength: 1, maxLength: 2048 },
      },
    },
    {
      type: 'object',
      required: ['access_key_id', 'secret_access_key'],
      properties: {
        type: { const: 'access_key', default: 'access_key' },
        access_key_id: { type: 'string', minLength: 1, maxLength: 128 },
        secret_access_key: { type: 'string', minLength: 1, maxLength: 1024, writeOnly: true },
      },
    },
  ],
};
HAND_WRITTEN.BucketCreateParams = {
  type: 'object',
  required: ['name', 'bucket', 'credentials'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    provider: { enum: ['aws_s3'], default: 'aws_s3' },
    bucket: { type: 'string', minLength: 1, maxLength: 255 },
    region: { type: ['string', 'null'], maxLength: 64 },
    endpoint_url: {
      type: ['string', 'null'],
      maxLength: 2048,
      description:
        'S3-compatible endpoint; omitted for AWS. Checked against the outbound policy (LARDER_OUTBOUND_ALLOW).',
    },
    prefix: { type: ['string', 'null'], maxLength: 1024, default: '' },
    sse_kms_key_id: { type: ['string', 'null'], maxLength: 2048 },
    credentials: bucketCredentials,
  },
};
HAND_WRITTEN.BucketRotateCredentialsParams = {
  type: 'object',
  required: ['credentials'],
  properties: { credentials: bucketCredentials.oneOf[1] },
};
/** Trace destinations (Larder's own API, docs/api.md "Trace destinations"): the settings object of each kind; credentials are write-only. */
const url = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'http(s), without credentials, query or fragment',
};
const traceDestinationFields = (required: boolean) => ({
  name: { type: 'string', minLength: 1, maxLength: 256 },
  enabled: { type: 'boolean', default: true },
  trace_kinds: {
    type: 'array',
    minItems: 1,
    maxItems: 3,
    uniqueItems: true,
    items: { enum: ['agentic_search', 'question_answering', 'chat_completion'] },
    description: 'default: all',
  },
  langfuse: {
    type: 'object',
    description:
      'with kind langfuse: spans go to <host>/api/public/otel/v1/traces with basic auth public_key:secret_key (write-only; the keys rotate together)',
    ...(required ? { required: ['host', 'public_key', 'secret_key'] } : {}),
    properties: {
      host: url,
      public_key: { type: 'string', minLength: 1, maxLength: 1024 },
      secret_key: { type: 'string', minLength: 1, maxLength: 1024 },
    },
    additionalProperties: false,
  },
  otlp: {
    type: 'object',
    description:
      'with kind otlp: the OTLP/HTTP traces endpoint; header values are write-only (supplying headers replaces them all)',
    ...(required ? { required: ['endpoint'] } : {}),
    properties: {
      endpoint: url,
      protocol: { enum: ['http/protobuf', 'http/json'], default: 'http/protobuf' },
      headers: { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 8192 } },
    },
    additionalProperties: false,
  },
});
HAND_WRITTEN.TraceDestinationCreateParams = {
  type: 'object',
  required: ['name', 'kind'],
  description: 'non-upstream (Larder): give the settings object named by kind',
  properties: { kind: { enum: ['langfuse', 'otlp'] }, ...traceDestinationFields(true) },
};
HAND_WRITTEN.TraceDestinationUpdateParams = {
  type: 'object',
  description:
    'non-upstream (Larder): every field optional; supplied credentials rotate, omitted ones are kept; a new host or endpoint needs the credentials again',
  properties: {
    kind: { enum: ['langfuse', 'otlp'], description: 'only the current kind' },
    ...traceDestinationFields(false),
  },
};

/** File search (`POST /v1/stores/files/search`): a search's body, its `search_options` with `return_chunks` and `chunks_per_file`. */
const searchBody = HAND_WRITTEN.StoreSearchParams as { properties: Record<string, unknown> };
HAND_WRITTEN.StoreFileSearchOptions = {
  type: 'object',
  properties: {
    // a file search is always the hybrid search (agentic is accepted and ignored)
    ...Object.fromEntries(
      Object.entries(
        (HAND_WRITTEN.StoreChunkSearchOptions as { properties: Record<string, unknown> }).properties,
      ).filter(([k]) => k !== 'agentic'),
    ),
    return_chunks: { type: 'boolean', default: true, description: 'each file with its best chunks (null otherwise)' },
    chunks_per_file: { type: 'integer', minimum: 0, maximum: 100, default: 3 },
  },
};
HAND_WRITTEN.StoreFileSearchParams = {
  type: 'object',
  required: ['query', 'store_identifiers'],
  // answered as JSON (`stream` is accepted and ignored)
  properties: {
    ...Object.fromEntries(Object.entries(searchBody.properties).filter(([k]) => k !== 'stream')),
    search_options: { $ref: '#/components/schemas/StoreFileSearchOptions' },
  },
};

/** Which hand-written schema describes the body of which route (operation ids are Controller_method). */
export const BODIES: Record<string, string> = {
  SearchStoresHttpController_find: 'StoreSearchParams',
  QuestionAnsweringHttpController_answer: 'StoreQuestionAnsweringParams',
  SearchFilesHttpController_search: 'StoreFileSearchParams',
  GrepStoresHttpController_grep: 'StoreGrepParams',
  ListChunksHttpController_listChunks: 'StoreListChunksParams',
  MetadataFacetsHttpController_facets: 'StoreMetadataFacetsParams',
  CreateSearchRuleHttpController_create: 'SearchRuleCreateParams',
  UpdateSearchRuleHttpController_update: 'SearchRuleCreateParams',
  CreateEmbeddingsHttpController_create: 'EmbeddingCreateParams',
  RerankHttpController_rerank: 'RerankParams',
  CreateBucketHttpController_create: 'BucketCreateParams',
  RotateBucketCredentialsHttpController_rotate: 'BucketRotateCredentialsParams',
  CreateTraceDestinationHttpController_create: 'TraceDestinationCreateParams',
  UpdateTraceDestinationHttpController_update: 'TraceDestinationUpdateParams',
};

/** Operations whose bodies are multipart forms, and the fields of each. */
const fileField = { type: 'string', contentMediaType: 'application/octet-stream', description: 'the file' };
export const MULTIPART: Record<string, Record<string, unknown>> = {
  'POST /v1/files': {
    type: 'object',
    required: ['file'],
    properties: {
      file: fileField,
      purpose: { type: 'string', description: "OpenAI's file purpose, echoed on the file" },
      description: { type: 'string', description: 'matched by `q` of the file list' },
    },
  },
  'POST /v1/files/{file_id}': { type: 'object', required: ['file'], properties: { file: fileField } },
  'POST /v1/stores/{store_identifier}/files/upload': {
    type: 'object',
    required: ['file'],
    properties: {
      file: fileField,
      params: {
        type: 'string',
        contentMediaType: 'application/json',
        description: 'the JSON body of POST /v1/stores/{store_identifier}/files without file_id',
      },
      metadata: {
        type: 'string',
        contentMediaType: 'application/json',
        description: 'file metadata as JSON (wins over params)',
      },
      config: {
        type: 'string',
        contentMediaType: 'application/json',
        description: 'ingestion options as JSON (wins over params)',
      },
    },
  },
};

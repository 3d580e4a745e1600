import { INestApplication, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { getMetadataStorage, validateSync } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { CONDITION_OPERATORS, IS_PUBLIC, ParseUuidParamPipe } from '@larder/kernel';
import { OPERATIONS, OperationSpec, RESPONSE_SCHEMAS } from './openapi-responses';

const filter = {
  description: 'A condition, a group (all / any / none, nestable) or a list of either (= all). Unprefixed keys address file metadata; generated_metadata.* the chunk metadata.',
  oneOf: [
    { $ref: '#/components/schemas/SearchFilter' },
    { $ref: '#/components/schemas/SearchFilterCondition' },
    { type: 'array', items: { oneOf: [{ $ref: '#/components/schemas/SearchFilter' }, { $ref: '#/components/schemas/SearchFilterCondition' }] } },
    { type: 'null' },
  ],
};
const common = {
  store_identifiers: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 16, description: 'stores by id or name' },
  top_k: { type: 'integer', minimum: 1, default: 10, description: 'no maximum; one request answers at most 1,000 results' },
  filters: filter,
  file_ids: { description: 'a list of file ids, or [operator, [file ids]] with in / not_in / eq / not_eq', type: 'array' },
};

/** Request bodies whose unions (filters, file_ids, query, rerank, rules) the DTOs' generated schemas cannot express, described here. */
const HAND_WRITTEN: Record<string, unknown> = {
  SearchFilterCondition: {
    type: 'object',
    required: ['key', 'operator', 'value'],
    properties: { key: { type: 'string' }, operator: { enum: [...CONDITION_OPERATORS] }, value: {} },
  },
  SearchFilter: {
    type: 'object',
    properties: Object.fromEntries(
      ['all', 'any', 'none'].map((k) => [k, { type: ['array', 'null'], items: { oneOf: [{ $ref: '#/components/schemas/SearchFilter' }, { $ref: '#/components/schemas/SearchFilterCondition' }] } }]),
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
            properties: { model: { type: 'string' }, with_metadata: { oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string' } }] }, top_k: { type: ['integer', 'null'], minimum: 1 } },
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
      results_per_query: { type: ['integer', 'null'], minimum: 1, maximum: 100, description: 'results each query retrieves; default max(top_k, 20)' },
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
      qa_options: { type: ['object', 'null'], properties: { cite: { type: 'boolean', default: true }, multimodal: { type: 'boolean', default: true } } },
      stream: { type: 'boolean', default: false, description: 'server-sent events: qa.sources, qa.answer.delta…, qa.completed, [DONE]' },
    },
  },
  StoreSearchParams: {
    type: 'object',
    required: ['query', 'store_identifiers'],
    properties: {
      query: {
        oneOf: [
          { type: 'string', minLength: 1 },
          { type: 'object', required: ['text'], properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1, maxLength: 65536 } } },
        ],
      },
      ...common,
      search_options: { $ref: '#/components/schemas/StoreChunkSearchOptions' },
      stream: { type: 'boolean', default: false, description: 'server-sent events: agentic trace events, search.completed, [DONE]' },
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
      sort_by: { oneOf: [{ type: 'string' }, { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] }, { type: 'null' }] },
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
      rules: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { enum: ['query_string', 'query_regex', 'chunk_search_result', 'file_search_result'] } } } },
    },
  },
};

const textInput = { type: 'object', required: ['text'], properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1 } } };
const encodingFormat = { enum: ['float', 'float16', 'base64', 'binary', 'ubinary', 'int8', 'uint8'] };
/** `POST /v1/embeddings`: Mixedbread's body (`model`, `input`, `dimensions`, `prompt`, `normalized`, `encoding_format`, `truncation_strategy`) and OpenAI's (`input`, `model`, `encoding_format`, `dimensions`, `user`). */
HAND_WRITTEN.EmbeddingCreateParams = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 500, description: 'a served model (GET /v1/models), an alias of one (LARDER_MODEL_ALIASES), or "default"' },
    input: {
      oneOf: [
        { type: 'string', minLength: 1, maxLength: 64000 },
        textInput,
        { type: 'array', minItems: 1, maxItems: 2048, items: { oneOf: [{ type: 'string', minLength: 1, maxLength: 64000 }, textInput] } },
      ],
    },
    dimensions: { type: ['integer', 'null'], minimum: 1, description: "keep the first n values (at most the model's), renormalized when `normalized`" },
    prompt: { type: ['string', 'null'], minLength: 1, maxLength: 32000, description: 'prepended to every input' },
    normalized: { type: ['boolean', 'null'], default: true },
    normalize: { type: ['boolean', 'null'], description: 'the same as `normalized` (the Vercel AI provider sends this name)' },
    encoding_format: { oneOf: [encodingFormat, { type: 'array', minItems: 1, items: encodingFormat }, { type: 'null' }], default: 'float', description: 'several formats → `embedding_dict` items' },
    truncation_strategy: { oneOf: [{ enum: ['start', 'end', 'none'] }, { type: 'null' }], default: 'end' },
    user: { type: ['string', 'null'], description: "OpenAI's end-user id: accepted, not stored" },
  },
};
/** `POST /v1/reranking`: a query, the documents to order, `top_k`, `return_input`. */
HAND_WRITTEN.RerankParams = {
  type: 'object',
  required: ['query', 'input'],
  properties: {
    model: { type: ['string', 'null'], default: 'default', description: 'a served reranking model, an alias of one, or "default"' },
    query: { oneOf: [{ type: 'string', minLength: 1, maxLength: 32000 }, textInput] },
    input: { type: 'array', minItems: 1, maxItems: 1000, items: { oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }] } },
    rank_fields: { type: ['array', 'null'], items: { type: 'string', minLength: 1 }, description: 'fields of object inputs to rank on (dots reach into nested objects)' },
    top_k: { type: ['integer', 'null'], minimum: -1, description: 'how many results; omitted, null or -1: all' },
    return_input: { type: ['boolean', 'null'], default: false },
    rewrite_query: { type: ['boolean', 'null'], enum: [false, null], default: false },
  },
};
/** Buckets: `credentials` is a union discriminated by `type` (the DTO leaves it to the writer, which never echoes it). */
const bucketCredentials = {
  oneOf: [
    { type: 'object', required: ['role_arn'], properties: { type: { const: 'assume_role', default: 'assume_role' }, role_arn: { type: 'string', minLength: 1, maxLength: 2048 } } },
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
    endpoint_url: { type: ['string', 'null'], maxLength: 2048, description: 'S3-compatible endpoint; omitted for AWS. Checked against the outbound policy (LARDER_OUTBOUND_ALLOW).' },
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
const url = { type: 'string', format: 'uri', maxLength: 2048, description: 'http(s), without credentials, query or fragment' };
const traceDestinationFields = (required: boolean) => ({
  name: { type: 'string', minLength: 1, maxLength: 256 },
  enabled: { type: 'boolean', default: true },
  trace_kinds: { type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: { enum: ['agentic_search', 'question_answering', 'chat_completion'] }, description: 'default: all' },
  langfuse: {
    type: 'object',
    description: 'with kind langfuse: spans go to <host>/api/public/otel/v1/traces with basic auth public_key:secret_key (write-only; the keys rotate together)',
    ...(required ? { required: ['host', 'public_key', 'secret_key'] } : {}),
    properties: { host: url, public_key: { type: 'string', minLength: 1, maxLength: 1024 }, secret_key: { type: 'string', minLength: 1, maxLength: 1024 } },
    additionalProperties: false,
  },
  otlp: {
    type: 'object',
    description: 'with kind otlp: the OTLP/HTTP traces endpoint; header values are write-only (supplying headers replaces them all)',
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
  description: 'non-upstream (Larder): every field optional; supplied credentials rotate, omitted ones are kept; a new host or endpoint needs the credentials again',
  properties: { kind: { enum: ['langfuse', 'otlp'], description: 'only the current kind' }, ...traceDestinationFields(false) },
};

/** File search (`POST /v1/stores/files/search`): a search's body, its `search_options` with `return_chunks` and `chunks_per_file`. */
const searchBody = HAND_WRITTEN.StoreSearchParams as { properties: Record<string, unknown> };
HAND_WRITTEN.StoreFileSearchOptions = {
  type: 'object',
  properties: {
    // a file search is always the hybrid search (agentic is accepted and ignored)
    ...Object.fromEntries(Object.entries((HAND_WRITTEN.StoreChunkSearchOptions as { properties: Record<string, unknown> }).properties).filter(([k]) => k !== 'agentic')),
    return_chunks: { type: 'boolean', default: true, description: 'each file with its best chunks (null otherwise)' },
    chunks_per_file: { type: 'integer', minimum: 0, maximum: 100, default: 3 },
  },
};
HAND_WRITTEN.StoreFileSearchParams = {
  type: 'object',
  required: ['query', 'store_identifiers'],
  // answered as JSON (`stream` is accepted and ignored)
  properties: { ...Object.fromEntries(Object.entries(searchBody.properties).filter(([k]) => k !== 'stream')), search_options: { $ref: '#/components/schemas/StoreFileSearchOptions' } },
};

/** Which hand-written schema describes the body of which route (operation ids are Controller_method). */
const BODIES: Record<string, string> = {
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

/** A query parameter as the document declares it. */
interface QueryParameter {
  name: string;
  schema: Record<string, unknown>;
  required?: true;
  description?: string;
}
const q = (name: string, schema: Record<string, unknown>, description?: string, required?: true): QueryParameter => ({
  name,
  schema,
  ...(description ? { description } : {}),
  ...(required ? { required } : {}),
});
const cursorQuery = [
  q('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'page size'),
  q('after', { type: 'string' }, 'cursor: the items after it (pagination.last_cursor)'),
  q('before', { type: 'string' }, 'cursor: the items before it (pagination.first_cursor)'),
  q('include_total', { type: 'boolean', default: false }, 'also count pagination.total'),
];
const offsetQuery = (max: number, def: number) => [
  q('limit', { type: 'integer', minimum: 1, maximum: max, default: def }),
  q('offset', { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 }),
];
const fileStatuses = { type: 'array', items: { enum: ['pending', 'in_progress', 'cancelled', 'completed', 'failed'] } };
/** The kinds of activity events (libs/activity events.ts). */
const EVENT_KINDS = ['ingestion', 'search', 'agentic_search', 'grep', 'completion', 'qa', 'embedding', 'reranking'];
const activityQuery = [
  q('event_type', { enum: EVENT_KINDS }, 'which kind of event to list', true),
  cursorQuery[0],
  q('filter_before', { type: 'string', format: 'date-time' }, 'only events created before'),
  q('filter_after', { type: 'string', format: 'date-time' }, 'only events created after'),
  ...cursorQuery.slice(1),
];
const openAiListQuery = [
  q('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
  q('order', { enum: ['asc', 'desc'], default: 'desc' }, 'by creation time'),
  q('after', { type: 'string' }, 'an object id: the items after it'),
  q('before', { type: 'string' }, 'an object id: the items before it'),
];
/** The query parameters of each query DTO (by class name); a DTO not listed here is described from its class-validator schema. */
export const QUERY_PARAMETERS: Record<string, QueryParameter[]> = {
  ListFilesRequestDto: [...cursorQuery, q('q', { type: 'string', minLength: 1, maxLength: 255 }, 'fuzzy match on the file name and description')],
  ListStoresRequestDto: [...cursorQuery, q('q', { type: 'string', minLength: 1, maxLength: 255 }, 'fuzzy match on the store name and description')],
  ListBucketsRequestDto: cursorQuery,
  ListStoreFilesDeprecatedRequestDto: [...cursorQuery, q('statuses', fileStatuses, 'only files in these states (repeat the key)')],
  ListApiKeysRequestDto: offsetQuery(1000, 100),
  ListTraceDestinationsRequestDto: offsetQuery(1000, 100),
  ListStoreEventsRequestDto: activityQuery,
  ListEventsRequestDto: [...activityQuery, q('store_identifier', { type: 'string' }, 'only the events of this store (id or name)')],
  OpenAiListRequestDto: openAiListQuery,
  OpenAiFileListRequestDto: [...openAiListQuery, q('filter', { enum: ['in_progress', 'completed', 'failed', 'cancelled'] }, 'only files in this state')],
  GetStoreFileRequestDto: [
    q(
      'return_chunks',
      { oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer', minimum: 0 } }], default: false },
      'true: every chunk; or the chunk indices to return (repeated or comma-separated)',
    ),
  ],
  ReingestStoreQueryDto: [
    q('statuses', fileStatuses, 'only files in these states (repeated or comma-separated; default all)'),
    q('billable', { type: 'boolean', default: false }, 'charge the reingestion'),
  ],
  UploadPartRequestDto: [q('expires', { type: 'string' }, 'expiry of the signed URL (Unix seconds)', true), q('signature', { type: 'string' }, 'HMAC signature of the URL', true)],
};

/** Operations whose bodies are multipart forms, and the fields of each. */
const fileField = { type: 'string', contentMediaType: 'application/octet-stream', description: 'the file' };
const MULTIPART: Record<string, Record<string, unknown>> = {
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
      params: { type: 'string', contentMediaType: 'application/json', description: 'the JSON body of POST /v1/stores/{store_identifier}/files without file_id' },
      metadata: { type: 'string', contentMediaType: 'application/json', description: 'file metadata as JSON (wins over params)' },
      config: { type: 'string', contentMediaType: 'application/json', description: 'ingestion options as JSON (wins over params)' },
    },
  },
};

const ERROR_RESPONSES: Record<string, { description: string; schema: string }> = {
  '400': { description: 'Bad request: a request the service refuses as asked (a malformed JSON body is a 422 json_invalid)', schema: 'Error' },
  '401': { description: 'No API key, or an unknown, revoked or expired one', schema: 'Error' },
  '403': { description: "The key's scope does not allow this", schema: 'Error' },
  '404': { description: 'Not found (or not visible to this organization; for /console: the console is not built)', schema: 'Error' },
  '409': { description: 'Conflict (a concurrent write, a name in use, a redeemed tool ticket); not worth retrying', schema: 'Error' },
  '413': { description: 'The body or the file is larger than the configured limit', schema: 'Error' },
  '422': { description: 'Validation failed', schema: 'ValidationError' },
  '503': { description: 'The database or a read model did not answer in time; retry shortly', schema: 'Error' },
};

const TAGS: Record<string, string> = {
  service: 'service information, health, this document',
  files: 'files and multipart uploads',
  api_keys: 'API keys',
  billing: 'usage and costs',
  buckets: 'bring-your-own object storage',
  trace_destinations: 'where agentic search, question answering and chat traces go (Larder)',
  admin: 'administration',
  events: 'activity events',
  stores: 'stores',
  store_files: 'the files of a store',
  search_rules: 'search rules',
  search: 'search, grep, chunks, facets, question answering',
  chat: 'chat completions with store tools',
  responses: "OpenAI's Responses API with file_search over the stores",
  embeddings: 'embeddings',
  reranking: 'reranking',
  models: 'served models',
  vector_stores: "OpenAI's vector store API",
};

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Record<string, unknown>>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses?: Record<string, unknown>;
  security?: unknown;
  deprecated?: boolean;
};

/** Every controller class of the application by name (the operation ids @nestjs/swagger makes are `Class_method`). */
function controllersOf(app: INestApplication): Map<string, Type> {
  const out = new Map<string, Type>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) if (wrapper.metatype) out.set(wrapper.metatype.name, wrapper.metatype as Type);
  }
  return out;
}

/** What a route handler reads: its query DTO or named query values, and whether it is public. */
function handlerFacts(controller: Type | undefined, method: string, fromDtos: Record<string, { properties?: Record<string, unknown>; required?: string[] }>) {
  if (!controller) return { query: [] as QueryParameter[], isPublic: false, uuids: new Set<string>() };
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number; data?: unknown; pipes?: unknown[] }>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ?? []) as Array<Type | undefined>;
  const query: QueryParameter[] = [];
  const uuids = new Set<string>();
  for (const [key, arg] of Object.entries(args).sort(([, a], [, b]) => a.index - b.index)) {
    if (Number(key.split(':')[0]) === Number(RouteParamtypes.PARAM) && typeof arg.data === 'string' && arg.pipes?.includes(ParseUuidParamPipe)) uuids.add(arg.data);
    if (Number(key.split(':')[0]) !== Number(RouteParamtypes.QUERY)) continue;
    if (typeof arg.data === 'string') {
      query.push(q(arg.data, { type: 'string' }));
      continue;
    }
    const dto = types[arg.index]?.name ?? '';
    const listed = QUERY_PARAMETERS[dto];
    if (listed) query.push(...listed);
    else for (const [name, schema] of Object.entries(fromDtos[dto]?.properties ?? {})) query.push(q(name, schema as Record<string, unknown>));
  }
  const handler = (controller.prototype as Record<string, unknown>)[method];
  const isPublic = Reflect.getMetadata(IS_PUBLIC, handler as object) === true || Reflect.getMetadata(IS_PUBLIC, controller) === true;
  return { query, isPublic, uuids };
}

/** What the path parameters are. */
const PATH_PARAMETERS: Record<string, string> = {
  store_identifier: 'a store id or its name',
  file_identifier: 'the file id, or its external id (which may contain `/`)',
  model: 'a model id or alias (it may contain `/`)',
  response_id: 'a response id (`resp_…`) of a stored response',
  organization_id: 'the organization the store belongs to',
  vector_store_id: 'the vector store (a store) id',
};

/**
 * class-validator-jsonschema names the design type of a property it cannot describe (`unknown`,
 * `object`, `T[]` of a union) as `$ref: #/components/schemas/Object` / `Array`: schemas that do not
 * exist. Those become what they mean: any JSON value, any array.
 */
function builtinRefsReplaced<T>(value: T, key = ''): T {
  if (Array.isArray(value)) return value.map((v: unknown) => builtinRefsReplaced(v)) as T;
  if (!value || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (ref === '#/components/schemas/Object') return {} as T;
  // an array's items of an unknown type: any value
  if (ref === '#/components/schemas/Array') return (key === 'items' ? {} : { type: 'array' }) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, builtinRefsReplaced(v, k)])) as T;
}

/**
 * class-validator-jsonschema calls every property without `@IsOptional` required, though many
 * validators (Larder's `Check`, conditional ones) accept an absent value. What is required is found
 * out instead: an empty instance of each DTO is validated, and a property stays required only when
 * its absence fails.
 */
function requiredByValidation(schemas: Record<string, { required?: string[] }>): void {
  const targets = (getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> }).validationMetadatas;
  for (const target of targets.keys()) {
    if (typeof target !== 'function') continue;
    const schema = schemas[(target as Type).name];
    if (!schema?.required?.length) continue;
    let missing: Set<string>;
    try {
      missing = new Set(validateSync(new (target as Type)() as object).map((e) => e.property));
    } catch {
      continue;
    }
    schema.required = schema.required.filter((p) => missing.has(p));
    if (!schema.required.length) delete schema.required;
  }
}

/** The responses of an operation: its success answer and the errors it can answer. */
function responsesOf(key: string, spec: OperationSpec | undefined, facts: { isPublic: boolean; hasParams: boolean; hasPath: boolean; hasBody: boolean }) {
  const responses: Record<string, unknown> = {};
  if (spec) {
    const json = (name: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } });
    let content: Record<string, unknown>;
    if (spec.response === 'html') content = { 'text/html': { schema: { type: 'string' } } };
    else if (spec.response === 'binary') content = { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };
    else if (spec.response === 'any-file') content = { '*/*': { schema: { type: 'string', description: "the file's own MIME type (application/octet-stream when unknown)" } } };
    else content = json(spec.response);
    if (spec.streams) content['text/event-stream'] = { schema: { type: 'string', description: 'with `stream: true`: server-sent events, `data: <JSON>` each, ending with `data: [DONE]`' } };
    responses[String(spec.status)] = { description: 'Success', content };
  }
  const errors: string[] = [];
  const method = key.split(' ')[0];
  const writes = method !== 'GET' && !spec?.readOnly;
  if (!facts.isPublic) errors.push('401', '403', '503');
  if (facts.hasBody || facts.hasParams) errors.push('400', '422');
  if (facts.hasPath || (!facts.isPublic && method !== 'GET')) errors.push('404');
  if (!facts.isPublic && (writes || spec?.toolTicket)) errors.push('409');
  if (facts.hasBody) errors.push('413');
  if (key === 'GET /console') errors.push('404');
  if (key === 'GET /health/ready') responses['503'] = { description: 'A dependency fails (the same body)', content: { 'application/json': { schema: { $ref: '#/components/schemas/HealthReady' } } } };
  for (const status of [...new Set(errors)].sort()) responses[status] = { $ref: `#/components/responses/${status}` };
  return responses;
}

/**
 * The service's OpenAPI 3.1 document: paths from the controllers, request schemas from the
 * class-validator DTOs (class-validator-jsonschema) and, for the bodies with unions, the schemas above;
 * operation ids, response schemas and errors from ./openapi-responses; query parameters from the
 * handlers' query DTOs (read from Nest's route metadata).
 */
export function buildOpenApi(app: INestApplication, version: string, options: { console?: boolean } = {}): OpenAPIObject {
  const config = new DocumentBuilder().setTitle('Larder').setDescription('Self-hosted document store and search service, wire-compatible with the Mixedbread API.').setVersion(version).build();
  const doc = SwaggerModule.createDocument(app, config, { operationIdFactory: (controller, method) => `${controller}_${method}` });
  doc.openapi = '3.1.0';
  const fromDtos = builtinRefsReplaced(validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' })) as Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
  requiredByValidation(fromDtos);
  const controllers = controllersOf(app);
  // the document itself and its interactive page are served outside Nest's router
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  // (and the web console, a page whose own routes are in the browser: /console/* answers the same page)
  const pages = ['/v1/schemas/mxjson', '/openapi.json', '/docs', ...(options.console ? ['/console'] : [])];
  for (const path of pages) paths[path] = { get: { operationId: `service_${path}`, responses: {} } };
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      const spec = OPERATIONS[key];
      const id = operation.operationId ?? '';
      const [controllerName, handler] = [id.slice(0, id.indexOf('_')), id.slice(id.indexOf('_') + 1)];
      const facts = handlerFacts(controllers.get(controllerName), handler, fromDtos);
      const isPublic = facts.isPublic || pages.includes(path);
      const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const parameters: Array<Record<string, unknown>> = [
        ...pathNames.map((name) => ({
          name,
          in: 'path',
          required: true,
          schema: facts.uuids.has(name) ? { type: 'string', format: 'uuid' } : { type: 'string' },
          ...(PATH_PARAMETERS[name] ? { description: PATH_PARAMETERS[name] } : {}),
        })),
        ...facts.query.map((p) => ({ in: 'query', ...p, ...(p.schema.type === 'array' ? { style: 'form', explode: true } : {}) })),
      ];
      if (spec?.toolTicket) {
        parameters.push({
          name: 'X-Mxbai-Tool-Ticket',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description: 'a tool ticket from a chat completion: the call is redeemed as that hosted tool call (once; 403 when forged, expired or foreign; 409 when used)',
        });
      }
      const multipart = MULTIPART[key];
      if (multipart) operation.requestBody = { required: true, content: { 'multipart/form-data': { schema: multipart } } };
      else if (key === 'PUT /v1/files/uploads/{upload_id}/parts/{part_number}') {
        operation.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
      } else if (operation.operationId && BODIES[operation.operationId]) {
        operation.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${BODIES[operation.operationId]}` } } } };
      }
      item[method] = {
        operationId: spec?.operationId ?? operation.operationId,
        ...(operation.summary ? { summary: operation.summary } : {}),
        ...(spec?.description ? { description: spec.description } : {}),
        tags: [spec?.tag ?? 'other'],
        parameters,
        ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
        responses: responsesOf(key, spec, { isPublic, hasParams: parameters.length > 0, hasPath: pathNames.length > 0, hasBody: !!operation.requestBody }),
        ...(isPublic ? { security: [] } : {}),
        // a controller marks its route deprecated with @ApiOperation({ deprecated: true })
        ...(operation.deprecated ? { deprecated: true } : {}),
      };
    }
  }
  doc.tags = Object.entries(TAGS).map(([name, description]) => ({ name, description }));
  doc.security = [{ ApiKeyAuth: [] }];
  doc.components = {
    securitySchemes: { ApiKeyAuth: { type: 'http', scheme: 'bearer', description: 'an API key: `Authorization: Bearer <key>`' } },
    schemas: { ...(fromDtos as Record<string, object>), ...(HAND_WRITTEN as Record<string, object>), ...RESPONSE_SCHEMAS },
    responses: Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, r]) => [status, { description: r.description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${r.schema}` } } } }]),
    ),
  };
  return doc;
}

/**
 * Serves the document at /openapi.json and /v1/schemas/mxjson, and interactive docs at /docs (offline
 * assets). Given a function, the document is built on its first request (once), not while the server starts.
 */
export function serveOpenApi(app: INestApplication, docOrBuild: OpenAPIObject | (() => OpenAPIObject)): void {
  let doc: OpenAPIObject | null = typeof docOrBuild === 'function' ? null : docOrBuild;
  const document = () => (doc ??= (docOrBuild as () => OpenAPIObject)());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'], customSiteTitle: 'Larder API' });
  const http = app.getHttpAdapter();
  http.get('/v1/schemas/mxjson', (_req: unknown, res: { json: (b: unknown) => void }) => res.json(document()));
}

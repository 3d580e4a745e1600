/**
 * What the OpenAPI document says about answers: the response schemas (as the server really answers,
 * checked against a real answer of every operation by test/openapi.e2e-spec.ts), and the table of
 * operations (operationId in the SDK's / upstream OAS's naming, tag, success status and body,
 * deprecation, streaming). Objects allow keys they do not name (the documented Larder additions).
 */

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const num: Schema = { type: 'number' };
const bool: Schema = { type: 'boolean' };
const dt: Schema = { type: 'string', format: 'date-time' };
const any: Schema = {};
const nullable = (s: Schema): Schema => ('$ref' in s || 'enum' in s || 'const' in s ? { anyOf: [s, { type: 'null' }] } : { ...s, type: [s.type as string, 'null'] });
const arr = (items: Schema): Schema => ({ type: 'array', items });
const lit = (value: string): Schema => ({ const: value });
const oneOfEnum = (...values: string[]): Schema => ({ enum: values });
/** An object whose `required` keys are always present, `optional` ones sometimes. */
const obj = (required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  required: Object.keys(required),
  properties: { ...required, ...optional },
});
/** A decimal sent as a string (`"12.50"`). */
const dec: Schema = { type: 'string', pattern: '^[+-]?\\d*\\.?\\d*$' };
/** An ISO 8601 duration (`PT1.5S`). */
const dur: Schema = { type: 'string', pattern: '^P' };

const cursorPagination = obj({ has_more: bool, first_cursor: nullable(str), last_cursor: nullable(str) }, { total: nullable(int) });
const cursorList = (item: string): Schema => obj({ object: lit('list'), data: arr(ref(item)), pagination: ref('CursorPagination') });
const offsetList = (item: string): Schema => obj({ object: lit('list'), data: arr(ref(item)), pagination: obj({ limit: int, offset: int, total: int }) });
const openAiList = (item: string): Schema => obj({ object: lit('list'), data: arr(ref(item)), first_id: nullable(str), last_id: nullable(str), has_more: bool });
const deleted = (object: string): Schema => obj({ id: str, deleted: { const: true }, object: lit(object) });
const fileCounts = obj({ pending: int, in_progress: int, cancelled: int, completed: int, failed: int, total: int });
const openAiFileCounts = obj({ in_progress: int, completed: int, failed: int, cancelled: int, total: int });
const usage = obj({ prompt_tokens: int, total_tokens: int }, { completion_tokens: int });
const storeFileStatus = oneOfEnum('pending', 'in_progress', 'cancelled', 'completed', 'failed');

const chunkTypes = ['text', 'image_url', 'audio_url', 'video_url'];
const rule = {
  type: 'object',
  required: ['type', 'query', 'store_id'],
  properties: {
    type: { enum: ['query_string', 'query_regex', 'chunk_search_result', 'file_search_result'] },
    query: str,
    store_id: str,
    substitution: str,
    pattern: str,
    replacement: str,
    flags: arr(oneOfEnum('IGNORECASE', 'MULTILINE', 'DOTALL', 'VERBOSE', 'ASCII', 'UNICODE')),
    file_id: str,
    chunk_index: { type: 'integer', minimum: 0 },
    result_index: { type: 'integer', minimum: 0 },
  },
};

/** The response schemas (components.schemas). */
export const RESPONSE_SCHEMAS: Record<string, Schema> = {
  Error: {
    description: 'Every error but 422: the status, a message, a machine-readable type',
    ...obj({ error: obj({ message: str, code: int, type: str }), message: str }),
  },
  ValidationErrorItem: obj({ loc: arr({ type: ['string', 'integer'] }), msg: str, type: str }, { input: any, ctx: { type: 'object' } }),
  ValidationError: {
    description: '422: one entry per invalid input (pydantic style)',
    ...obj({ detail: arr(ref('ValidationErrorItem')) }, { message: str }),
  },
  CursorPagination: cursorPagination,
  InfoResponse: obj({ name: str, version: str }),
  Health: obj({ status: oneOfEnum('ok', 'degraded', 'failing', 'starting') }),
  HealthReady: obj({ status: str, checks: { type: 'object', additionalProperties: obj({ status: str }) } }),
  OpenApiDocument: obj({ openapi: str, info: { type: 'object' }, paths: { type: 'object' } }, { components: { type: 'object' } }),
  ApiKey: obj(
    { id: str, name: str, redacted_value: str, expires_at: nullable(dt), created_at: dt, updated_at: dt, last_active_at: nullable(dt), object: lit('api_key') },
    { scope: nullable(arr(obj({ method: str }, { target: any }))) },
  ),
  ApiKeyCreated: { allOf: [ref('ApiKey'), obj({ value: str })], description: 'the key with its secret `value` (shown once)' },
  ApiKeyList: offsetList('ApiKey'),
  ApiKeyDeleted: deleted('api_key'),
  FileObject: obj(
    { id: str, filename: str, bytes: int, mime_type: str, version: int, created_at: dt, updated_at: dt, object: lit('file') },
    { purpose: nullable(str), status: str, description: nullable(str) },
  ),
  FileList: cursorList('FileObject'),
  FileDeleted: deleted('file'),
  MultipartUploadPartUrl: obj({ part_number: { type: 'integer', minimum: 1 }, url: str }),
  MultipartUploadPart: obj({ part_number: { type: 'integer', minimum: 1 }, etag: str }),
  MultipartUploadCreated: obj({ id: str, part_urls: arr(ref('MultipartUploadPartUrl')) }),
  MultipartUpload: obj({ id: str, filename: str, file_size: int, mime_type: str, part_count: int, created_at: dt }),
  MultipartUploadList: obj({ data: arr(ref('MultipartUpload')) }),
  MultipartUploadDetail: {
    allOf: [ref('MultipartUpload'), obj({ completed_parts: arr(ref('MultipartUploadPart')), part_urls: arr(ref('MultipartUploadPartUrl')) })],
  },
  Store: obj(
    {
      id: str,
      name: str,
      description: nullable(str),
      is_public: bool,
      metadata: any,
      file_counts: fileCounts,
      status: oneOfEnum('expired', 'in_progress', 'completed', 'failed'),
      created_at: dt,
      updated_at: dt,
      usage_bytes: int,
      usage_tokens: int,
      object: lit('store'),
    },
    {
      license: nullable(str),
      config: nullable({ type: 'object', properties: { save_content: bool, contextualization: { anyOf: [bool, { type: 'object' }] }, lsf: nullable({ type: 'object' }) } }),
      bucket_id: nullable(str),
      expires_after: nullable(obj({ anchor: lit('last_active_at'), days: int })),
      last_active_at: nullable(dt),
      expires_at: nullable(dt),
      copy_state: nullable(obj({ role: oneOfEnum('source', 'target'), status: oneOfEnum('in_progress', 'failed'), peer_store_id: str, started_at: dt }, { error: nullable(str) })),
    },
  ),
  StoreList: cursorList('Store'),
  StoreDeleted: deleted('store'),
  StoreFile: obj(
    { id: str, filename: str, status: storeFileStatus, store_id: str, created_at: dt, object: lit('store.file'), content_url: nullable(str) },
    {
      metadata: any,
      external_id: nullable(str),
      last_error: any,
      version: nullable(int),
      usage_bytes: nullable(int),
      usage_tokens: nullable(int),
      config: nullable({ type: 'object', properties: { parsing_strategy: oneOfEnum('fast', 'high_quality') } }),
      chunks: nullable(arr(obj({ type: { enum: chunkTypes }, chunk_index: int }))),
    },
  ),
  StoreFileList: cursorList('StoreFile'),
  StoreFileDeleted: deleted('store.file'),
  Rule: rule,
  SearchRule: obj({ id: str, object: lit('search_rule'), query: str, store_id: str, rules: arr(ref('Rule')), created_at: dt, updated_at: dt }),
  SearchRuleDeleted: obj({ deleted: { const: true }, object: lit('search_rule.deleted') }),
  SearchRuleSpecificDeleted: obj({ id: str, object: lit('search_rule'), deleted_rule: ref('Rule'), remaining_rules: int }),
  ScoredChunk: obj(
    { type: { enum: chunkTypes }, chunk_index: int, score: num, file_id: str, filename: str, store_id: str, metadata: any },
    {
      mime_type: str,
      generated_metadata: nullable({ type: 'object' }),
      model: nullable(str),
      text: nullable(str),
      offset: int,
      context: nullable(str),
      summary: nullable(str),
      external_id: nullable(str),
    },
  ),
  ScoredChunkList: obj({ object: lit('list'), data: arr(ref('ScoredChunk')) }),
  StoreSearchResponse: obj({ object: lit('list'), data: arr(ref('ScoredChunk')) }, { trace: any }),
  ScoredStoreFile: { allOf: [ref('StoreFile'), obj({ score: num })] },
  StoreFileSearchResponse: obj({ object: lit('list'), data: arr(ref('ScoredStoreFile')) }),
  MetadataFacets: obj({ facets: { type: 'object', additionalProperties: { type: 'object', additionalProperties: int } } }),
  StoreQAResults: obj({ answer: str, sources: arr(ref('ScoredChunk')) }, { model: nullable(str) }),
  ChatCompletion: obj(
    {
      id: str,
      object: lit('chat.completion'),
      created: int,
      model: str,
      choices: arr(obj({ index: int, message: obj({ role: lit('assistant'), content: nullable(str) }, { tool_calls: nullable(arr({ type: 'object' })) }), finish_reason: nullable(str) })),
    },
    { usage: nullable(usage) },
  ),
  Response: obj(
    { id: str, object: lit('response'), created_at: int, status: oneOfEnum('completed', 'incomplete', 'in_progress', 'failed'), model: str, output: arr(obj({ id: str, type: str })) },
    { usage: nullable(obj({ input_tokens: int, output_tokens: int, total_tokens: int })), previous_response_id: nullable(str), tools: arr({ type: 'object' }) },
  ),
  ResponseDeleted: deleted('response'),
  ResponseInputItem: obj({ id: str, type: oneOfEnum('message', 'function_call', 'function_call_output') }),
  ResponseInputItemList: openAiList('ResponseInputItem'),
  Model: obj({ id: str, object: lit('model'), created: int, owned_by: str }, { type: str, default: bool, aliases: arr(str), dimensions: nullable(int) }),
  ModelList: obj({ object: lit('list'), data: arr(ref('Model')) }),
  EmbeddingResponse: obj({
    object: lit('list'),
    model: str,
    data: arr(obj({ object: { enum: ['embedding', 'embedding_dict'] }, index: int, embedding: any })),
    usage,
    normalized: bool,
    encoding_format: { anyOf: [str, arr(str)] },
    dimensions: nullable(int),
  }),
  RerankResponse: obj({
    object: lit('list'),
    model: str,
    data: arr(obj({ object: lit('rank_result'), index: int, score: num }, { input: any })),
    usage,
    top_k: int,
    return_input: bool,
  }),
  StoreEvent: obj(
    { id: str, created_at: dt, type: oneOfEnum('ingestion', 'search', 'agentic_search', 'grep', 'completion', 'qa', 'embedding', 'reranking'), store_id: nullable(str) },
    { queue_time: dur, total_time: dur },
  ),
  StoreEventList: cursorList('StoreEvent'),
  StoreEventHistogram: obj({ object: lit('store.histogram'), data: arr(obj({ bucket_start: dt, bucket_end: dt, event_count: int, type: str })) }),
  BillingSummary: obj({
    period: obj({ start: dt, end: dt }),
    cost: obj({
      net_usage_cost: dec,
      gross_usage_cost: dec,
      balance_applied: dec,
      phases: arr({ type: 'object' }),
      products: arr(obj({ product_name: str, gross_usage_cost: dec, net_usage_cost: dec })),
    }),
    balance: obj({ current_balance: num, next_effective_balance: num, next_effective_date: nullable(dt) }),
    usages: { type: 'object', additionalProperties: obj({ current: dec, limit: nullable(dec), unit: str }) },
    generated_at: dt,
  }),
  StoreCostList: obj({ object: lit('list'), data: arr(obj({ store_id: str, cost: dec, cost_per_metric: { type: 'object', additionalProperties: dec } })) }),
  CostHistogram: obj({ object: lit('cost.histogram'), data: arr(obj({ day: dt, cost: dec, cost_per_metric: { type: 'object', additionalProperties: dec } })) }),
  TraceDestination: obj({
    id: str,
    object: lit('trace_destination'),
    name: str,
    kind: oneOfEnum('langfuse', 'otlp'),
    enabled: bool,
    trace_kinds: arr(oneOfEnum('agentic_search', 'question_answering', 'chat_completion')),
    langfuse: nullable(obj({ host: str, public_key: str })),
    otlp: nullable(obj({ endpoint: str, protocol: oneOfEnum('http/protobuf', 'http/json'), header_names: arr(str) })),
    credentials: obj({ version: int, updated_at: dt }),
    delivery: obj({ status: str, consecutive_failures: int, pending: int, delivered: int, dropped: int }),
    created_at: dt,
    updated_at: dt,
  }),
  TraceDestinationList: offsetList('TraceDestination'),
  TraceDestinationDeleted: deleted('trace_destination'),
  Bucket: obj({
    id: str,
    created_at: dt,
    updated_at: dt,
    name: str,
    provider: lit('aws_s3'),
    bucket: str,
    region: nullable(str),
    endpoint_url: nullable(str),
    prefix: str,
    sse_kms_key_id: nullable(str),
    auth_type: oneOfEnum('assume_role', 'access_key'),
    role_arn: nullable(str),
    external_id: nullable(str),
    status: oneOfEnum('pending', 'active', 'error'),
    last_validated_at: nullable(dt),
    has_credentials: bool,
    credentials_version: int,
    object: lit('bucket'),
  }),
  BucketList: cursorList('Bucket'),
  BucketDeleted: deleted('bucket'),
  ReingestResult: obj({ message: str, jobs_created: int }),
  VectorStore: obj(
    {
      id: str,
      object: lit('vector_store'),
      created_at: int,
      name: nullable(str),
      usage_bytes: int,
      file_counts: openAiFileCounts,
      status: oneOfEnum('expired', 'in_progress', 'completed'),
      metadata: nullable({ type: 'object' }),
    },
    { description: nullable(str), expires_after: nullable({ type: 'object' }), expires_at: nullable(int), last_active_at: nullable(int) },
  ),
  VectorStoreList: openAiList('VectorStore'),
  VectorStoreDeleted: deleted('vector_store.deleted'),
  VectorStoreFile: obj(
    {
      id: str,
      object: lit('vector_store.file'),
      usage_bytes: int,
      created_at: int,
      vector_store_id: str,
      status: oneOfEnum('in_progress', 'completed', 'cancelled', 'failed'),
      last_error: nullable(obj({ code: str, message: str })),
    },
    { attributes: nullable({ type: 'object' }), chunking_strategy: { type: 'object' } },
  ),
  VectorStoreFileList: openAiList('VectorStoreFile'),
  VectorStoreFileDeleted: deleted('vector_store.file.deleted'),
  VectorStoreFileContent: obj({ object: lit('vector_store.file_content.page'), data: arr(obj({ type: str, text: str })), has_more: bool, next_page: nullable(str) }),
  VectorStoreFileBatch: obj({
    id: str,
    object: lit('vector_store.files_batch'),
    created_at: int,
    vector_store_id: str,
    status: oneOfEnum('in_progress', 'completed', 'cancelled', 'failed'),
    file_counts: openAiFileCounts,
  }),
  VectorStoreSearchResults: obj({
    object: lit('vector_store.search_results.page'),
    search_query: { anyOf: [str, arr(str)] },
    data: arr(obj({ file_id: str, filename: str, score: num, attributes: nullable({ type: 'object' }), content: arr(obj({ type: str, text: str })) })),
    has_more: bool,
    next_page: nullable(str),
  }),
};

/** How an operation answers when it succeeds. */
export interface OperationSpec {
  operationId: string;
  tag: string;
  status: number;
  /** a schema name of RESPONSE_SCHEMAS; `html` / `binary` / `any-file` for the answers that are not JSON */
  response: string;
  description?: string;
  /** `stream: true` answers server-sent events */
  streams?: true;
  /** accepts `X-Mxbai-Tool-Ticket` */
  toolTicket?: true;
  /** changes nothing (a POST that only reads): no 409 */
  readOnly?: true;
}

const op = (operationId: string, tag: string, status: number, response: string, extra: Partial<OperationSpec> = {}): OperationSpec => ({ operationId, tag, status, response, ...extra });
const reads = { readOnly: true } as const;

/** Every operation, by `METHOD /path` (OpenAPI path templates). Upstream's operationIds where it has one; Larder's own in the same style. */
export const OPERATIONS: Record<string, OperationSpec> = {
  'GET /': op('info', 'service', 200, 'InfoResponse'),
  'GET /health/live': op('get_liveness', 'service', 200, 'Health', { description: 'the process answers (no API key)' }),
  'GET /health/ready': op('get_readiness', 'service', 200, 'HealthReady', { description: 'each dependency; 503 with the same body when one fails (no API key)' }),
  'GET /v1/schemas/mxjson': op('get_mxbai_json_schema', 'service', 200, 'OpenApiDocument', { description: 'this document' }),
  'GET /openapi.json': op('get_openapi_document', 'service', 200, 'OpenApiDocument', { description: 'this document (the same as /v1/schemas/mxjson)' }),
  'GET /console': op('get_console', 'service', 200, 'html', { description: 'the web console (a single-page app: every path under /console/ answers this page; no API key)' }),
  'GET /docs': op('get_api_docs', 'service', 200, 'html', { description: 'interactive documentation (Swagger UI, its assets under /docs/)' }),

  'POST /v1/files': op('create_file', 'files', 201, 'FileObject'),
  'GET /v1/files': op('list_files', 'files', 200, 'FileList'),
  'GET /v1/files/uploads': op('list_multipart_uploads', 'files', 200, 'MultipartUploadList'),
  'POST /v1/files/uploads': op('create_multipart_upload', 'files', 201, 'MultipartUploadCreated'),
  'GET /v1/files/uploads/{upload_id}': op('get_multipart_upload', 'files', 200, 'MultipartUploadDetail'),
  'POST /v1/files/uploads/{upload_id}/complete': op('complete_multipart_upload', 'files', 200, 'FileObject'),
  'POST /v1/files/uploads/{upload_id}/abort': op('abort_multipart_upload', 'files', 200, 'FileDeleted'),
  'PUT /v1/files/uploads/{upload_id}/parts/{part_number}': op('upload_multipart_part', 'files', 200, 'MultipartUploadPart', {
    description: 'the target of a presigned part URL: the raw bytes of the part; the signature in the query is the authority (no API key); the ETag header carries the part etag',
  }),
  'GET /v1/files/{file_id}': op('retrieve_file', 'files', 200, 'FileObject'),
  'POST /v1/files/{file_id}': op('update_file', 'files', 200, 'FileObject'),
  'DELETE /v1/files/{file_id}': op('delete_file', 'files', 200, 'FileDeleted'),
  'GET /v1/files/{file_id}/content': op('download_file', 'files', 200, 'binary'),

  'POST /v1/api-keys': op('create_api_key', 'api_keys', 201, 'ApiKeyCreated'),
  'GET /v1/api-keys': op('list_api_keys', 'api_keys', 200, 'ApiKeyList'),
  'GET /v1/api-keys/{api_key_id}': op('retrieve_api_key', 'api_keys', 200, 'ApiKey'),
  'PATCH /v1/api-keys/{api_key_id}': op('update_api_key', 'api_keys', 200, 'ApiKey'),
  'DELETE /v1/api-keys/{api_key_id}': op('delete_api_key', 'api_keys', 200, 'ApiKeyDeleted'),
  'POST /v1/api-keys/{api_key_id}/revoke': op('revoke_api_key', 'api_keys', 200, 'ApiKey'),
  'POST /v1/api-keys/{api_key_id}/reroll': op('reroll_api_key', 'api_keys', 200, 'ApiKeyCreated'),

  'GET /v1/billing/summary': op('get_billing_summary', 'billing', 200, 'BillingSummary'),
  'GET /v1/billing/stores': op('list_store_cost_info', 'billing', 200, 'StoreCostList'),
  'GET /v1/billing/stores/{store_id}/costs/histogram': op('get_store_cost_histogram', 'billing', 200, 'CostHistogram'),
  'GET /v1/billing/parsing/costs/histogram': op('get_parsing_cost_histogram', 'billing', 200, 'CostHistogram'),

  'GET /v1/buckets': op('list_buckets', 'buckets', 200, 'BucketList'),
  'POST /v1/buckets': op('create_bucket', 'buckets', 201, 'Bucket'),
  'GET /v1/buckets/{bucket_id}': op('retrieve_bucket', 'buckets', 200, 'Bucket'),
  'DELETE /v1/buckets/{bucket_id}': op('delete_bucket', 'buckets', 200, 'BucketDeleted'),
  'POST /v1/buckets/{bucket_id}/credentials': op('rotate_bucket_credentials', 'buckets', 200, 'Bucket'),

  'GET /v1/trace-destinations': op('list_trace_destinations', 'trace_destinations', 200, 'TraceDestinationList'),
  'POST /v1/trace-destinations': op('create_trace_destination', 'trace_destinations', 201, 'TraceDestination'),
  'GET /v1/trace-destinations/{trace_destination_id}': op('retrieve_trace_destination', 'trace_destinations', 200, 'TraceDestination'),
  'PATCH /v1/trace-destinations/{trace_destination_id}': op('update_trace_destination', 'trace_destinations', 200, 'TraceDestination'),
  'DELETE /v1/trace-destinations/{trace_destination_id}': op('delete_trace_destination', 'trace_destinations', 200, 'TraceDestinationDeleted'),

  'POST /v1/admin/stores/{organization_id}/{store_identifier}/reingest': op('reingest_all_stores', 'admin', 200, 'ReingestResult', { description: 'administrators only' }),

  'GET /v1/events': op('list_events', 'events', 200, 'StoreEventList', { description: "the organization's events across its stores" }),
  'GET /v1/stores/{store_identifier}/events': op('list_store_events', 'events', 200, 'StoreEventList'),
  'POST /v1/stores/{store_identifier}/events/histogram': op('get_store_event_histogram', 'events', 200, 'StoreEventHistogram', reads),

  'POST /v1/stores': op('create_store', 'stores', 201, 'Store'),
  'GET /v1/stores': op('list_stores', 'stores', 200, 'StoreList'),
  'GET /v1/stores/{store_identifier}': op('retrieve_store', 'stores', 200, 'Store'),
  'PUT /v1/stores/{store_identifier}': op('update_store', 'stores', 200, 'Store'),
  'DELETE /v1/stores/{store_identifier}': op('delete_store', 'stores', 200, 'StoreDeleted'),
  'POST /v1/stores/{store_identifier}/copy': op('copy_store', 'stores', 201, 'Store'),

  'POST /v1/stores/{store_identifier}/files': op('create_store_file', 'store_files', 201, 'StoreFile'),
  'GET /v1/stores/{store_identifier}/files': op('list_store_files', 'store_files', 200, 'StoreFileList', {
    description: 'deprecated (answers carry a `Deprecation` header): use POST /v1/stores/{store_identifier}/files/list',
  }),
  'POST /v1/stores/{store_identifier}/files/upload': op('upload_store_file', 'store_files', 201, 'StoreFile'),
  'POST /v1/stores/{store_identifier}/files/list': op('list_store_files_with_metadata_filter', 'store_files', 200, 'StoreFileList', reads),
  'GET /v1/stores/{store_identifier}/files/{file_identifier}': op('retrieve_store_file', 'store_files', 200, 'StoreFile'),
  'PATCH /v1/stores/{store_identifier}/files/{file_identifier}': op('update_store_file', 'store_files', 200, 'StoreFile'),
  'DELETE /v1/stores/{store_identifier}/files/{file_identifier}': op('delete_store_file', 'store_files', 200, 'StoreFileDeleted'),
  'GET /v1/stores/{store_identifier}/files/{file_identifier}/content': op('download_store_file', 'store_files', 200, 'any-file', {
    description: "the target of a store file's `content_url`: the original content in its own MIME type; the signature in the query is the authority (no API key)",
  }),

  'POST /v1/stores/{store_identifier}/rules': op('create_search_rule', 'search_rules', 201, 'SearchRule'),
  'GET /v1/stores/{store_identifier}/rules/{rule_id}': op('retrieve_search_rule', 'search_rules', 200, 'SearchRule'),
  'PUT /v1/stores/{store_identifier}/rules/{rule_id}': op('update_search_rule', 'search_rules', 200, 'SearchRule'),
  'DELETE /v1/stores/{store_identifier}/rules/{rule_id}': op('delete_search_rule', 'search_rules', 200, 'SearchRuleDeleted'),
  'DELETE /v1/stores/{store_identifier}/rules/{rule_id}/specific': op('delete_specific_search_rule', 'search_rules', 200, 'SearchRuleSpecificDeleted'),

  'POST /v1/stores/search': op('search_store_chunks', 'search', 200, 'StoreSearchResponse', { streams: true, toolTicket: true, readOnly: true }),
  'POST /v1/stores/files/search': op('search_store_files', 'search', 200, 'StoreFileSearchResponse', reads),
  'POST /v1/stores/question-answering': op('create_question_answering', 'search', 200, 'StoreQAResults', { streams: true, readOnly: true }),
  'POST /v1/stores/grep': op('grep_store_chunks', 'search', 200, 'ScoredChunkList', { toolTicket: true, readOnly: true }),
  'POST /v1/stores/list-chunks': op('list_store_chunks', 'search', 200, 'ScoredChunkList', reads),
  'POST /v1/stores/metadata-facets': op('get_metadata_facets', 'search', 200, 'MetadataFacets', reads),
  'POST /v1/chat/completions': op('create_chat_completion', 'chat', 200, 'ChatCompletion', { streams: true }),
  'POST /v1/responses': op('create_response', 'responses', 200, 'Response', { streams: true }),
  'GET /v1/responses/{response_id}': op('retrieve_response', 'responses', 200, 'Response'),
  'DELETE /v1/responses/{response_id}': op('delete_response', 'responses', 200, 'ResponseDeleted'),
  'GET /v1/responses/{response_id}/input_items': op('list_response_input_items', 'responses', 200, 'ResponseInputItemList'),
  'POST /v1/embeddings': op('create_embeddings', 'embeddings', 200, 'EmbeddingResponse', reads),
  'POST /v1/reranking': op('rerank', 'reranking', 200, 'RerankResponse', reads),
  'GET /v1/models': op('list_models', 'models', 200, 'ModelList'),
  'GET /v1/models/{model}': op('retrieve_model', 'models', 200, 'Model', { description: 'a model id may contain `/`' }),

  'POST /v1/vector_stores': op('create_vector_store', 'vector_stores', 200, 'VectorStore'),
  'GET /v1/vector_stores': op('list_vector_stores', 'vector_stores', 200, 'VectorStoreList'),
  'GET /v1/vector_stores/{vector_store_id}': op('retrieve_vector_store', 'vector_stores', 200, 'VectorStore'),
  'POST /v1/vector_stores/{vector_store_id}': op('update_vector_store', 'vector_stores', 200, 'VectorStore'),
  'DELETE /v1/vector_stores/{vector_store_id}': op('delete_vector_store', 'vector_stores', 200, 'VectorStoreDeleted'),
  'POST /v1/vector_stores/{vector_store_id}/search': op('search_vector_store', 'vector_stores', 200, 'VectorStoreSearchResults', reads),
  'POST /v1/vector_stores/{vector_store_id}/files': op('create_vector_store_file', 'vector_stores', 200, 'VectorStoreFile'),
  'GET /v1/vector_stores/{vector_store_id}/files': op('list_vector_store_files', 'vector_stores', 200, 'VectorStoreFileList'),
  'GET /v1/vector_stores/{vector_store_id}/files/{file_id}': op('retrieve_vector_store_file', 'vector_stores', 200, 'VectorStoreFile'),
  'POST /v1/vector_stores/{vector_store_id}/files/{file_id}': op('update_vector_store_file_attributes', 'vector_stores', 200, 'VectorStoreFile'),
  'DELETE /v1/vector_stores/{vector_store_id}/files/{file_id}': op('delete_vector_store_file', 'vector_stores', 200, 'VectorStoreFileDeleted'),
  'GET /v1/vector_stores/{vector_store_id}/files/{file_id}/content': op('retrieve_vector_store_file_content', 'vector_stores', 200, 'VectorStoreFileContent'),
  'POST /v1/vector_stores/{vector_store_id}/file_batches': op('create_vector_store_file_batch', 'vector_stores', 200, 'VectorStoreFileBatch'),
  'GET /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}': op('retrieve_vector_store_file_batch', 'vector_stores', 200, 'VectorStoreFileBatch'),
  'POST /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel': op('cancel_vector_store_file_batch', 'vector_stores', 200, 'VectorStoreFileBatch'),
  'GET /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/files': op('list_vector_store_files_in_batch', 'vector_stores', 200, 'VectorStoreFileList'),
};

/**
 * The response schemas of the OpenAPI document (components.schemas), as the server really answers:
 * test/openapi.e2e-spec.ts checks them against a real answer of every operation. Objects allow keys they
 * do not name (the documented Larder additions).
 */

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const num: Schema = { type: 'number' };
const bool: Schema = { type: 'boolean' };
const dt: Schema = { type: 'string', format: 'date-time' };
const any: Schema = {};
const nullable = (s: Schema): Schema =>
  '$ref' in s || 'enum' in s || 'const' in s
    ? { anyOf: [s, { type: 'null' }] }
    : { ...s, type: [s.type as string, 'null'] };
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

const cursorPagination = obj(
  { has_more: bool, first_cursor: nullable(str), last_cursor: nullable(str) },
  { total: nullable(int) },
);
const cursorList = (item: string): Schema =>
  obj({ object: lit('list'), data: arr(ref(item)), pagination: ref('CursorPagination') });
const offsetList = (item: string): Schema =>
  obj({ object: lit('list'), data: arr(ref(item)), pagination: obj({ limit: int, offset: int, total: int }) });
const openAiList = (item: string): Schema =>
  obj({ object: lit('list'), data: arr(ref(item)), first_id: nullable(str), last_id: nullable(str), has_more: bool });
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
  ValidationErrorItem: obj(
    { loc: arr({ type: ['string', 'integer'] }), msg: str, type: str },
    { input: any, ctx: { type: 'object' } },
  ),
  ValidationError: {
    description: '422: one entry per invalid input (pydantic style)',
    ...obj({ detail: arr(ref('ValidationErrorItem')) }, { message: str }),
  },
  CursorPagination: cursorPagination,
  InfoResponse: obj({ name: str, version: str }),
  Health: obj({ status: oneOfEnum('ok', 'degraded', 'failing', 'starting') }),
  HealthReady: obj({ status: str, checks: { type: 'object', additionalProperties: obj({ status: str }) } }),
  OpenApiDocument: obj(
    { openapi: str, info: { type: 'object' }, paths: { type: 'object' } },
    { components: { type: 'object' } },
  ),
  ApiKey: obj(
    {
      id: str,
      name: str,
      redacted_value: str,
      expires_at: nullable(dt),
      created_at: dt,
      updated_at: dt,
      last_active_at: nullable(dt),
      object: lit('api_key'),
    },
    { scope: nullable(arr(obj({ method: str }, { target: any }))) },
  ),
  ApiKeyCreated: {
    allOf: [ref('ApiKey'), obj({ value: str })],
    description: 'the key with its secret `value` (shown once)',
  },
  ApiKeyList: offsetList('ApiKey'),
  ApiKeyDeleted: deleted('api_key'),
  FileObject: obj(
    {
      id: str,
      filename: str,
      bytes: int,
      mime_type: str,
      version: int,
      created_at: dt,
      updated_at: dt,
      object: lit('file'),
    },
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
    allOf: [
      ref('MultipartUpload'),
      obj({ completed_parts: arr(ref('MultipartUploadPart')), part_urls: arr(ref('MultipartUploadPartUrl')) }),
    ],
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
      config: nullable({
        type: 'object',
        properties: {
          save_content: bool,
          contextualization: { anyOf: [bool, { type: 'object' }] },
          lsf: nullable({ type: 'object' }),
        },
      }),
      bucket_id: nullable(str),
      expires_after: nullable(obj({ anchor: lit('last_active_at'), days: int })),
      last_active_at: nullable(dt),
      expires_at: nullable(dt),
      copy_state: nullable(
        obj(
          {
            role: oneOfEnum('source', 'target'),
            status: oneOfEnum('in_progress', 'failed'),
            peer_store_id: str,
            started_at: dt,
          },
          { error: nullable(str) },
        ),
      ),
    },
  ),
  StoreList: cursorList('Store'),
  StoreDeleted: deleted('store'),
  StoreFile: obj(
    {
      id: str,
      filename: str,
      status: storeFileStatus,
      store_id: str,
      created_at: dt,
      object: lit('store.file'),
      content_url: nullable(str),
    },
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
  SearchRule: obj({
    id: str,
    object: lit('search_rule'),
    query: str,
    store_id: str,
    rules: arr(ref('Rule')),
    created_at: dt,
    updated_at: dt,
  }),
  SearchRuleDeleted: obj({ deleted: { const: true }, object: lit('search_rule.deleted') }),
  SearchRuleSpecificDeleted: obj({
    id: str,
    object: lit('search_rule'),
    deleted_rule: ref('Rule'),
    remaining_rules: int,
  }),
  ScoredChunk: obj(
    {
      type: { enum: chunkTypes },
      chunk_index: int,
      score: num,
      file_id: str,
      filename: str,
      store_id: str,
      metadata: any,
    },
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
  MetadataFacets: obj({
    facets: { type: 'object', additionalProperties: { type: 'object', additionalProperties: int } },
  }),
  StoreQAResults: obj({ answer: str, sources: arr(ref('ScoredChunk')) }, { model: nullable(str) }),
  ChatCompletion: obj(
    {
      id: str,
      object: lit('chat.completion'),
      created: int,
      model: str,
      choices: arr(
        obj({
          index: int,
          message: obj(
            { role: lit('assistant'), content: nullable(str) },
            { tool_calls: nullable(arr({ type: 'object' })) },
          ),
          finish_reason: nullable(str),
        }),
      ),
    },
    { usage: nullable(usage) },
  ),
  Response: obj(
    {
      id: str,
      object: lit('response'),
      created_at: int,
      status: oneOfEnum('completed', 'incomplete', 'in_progress', 'failed'),
      model: str,
      output: arr(obj({ id: str, type: str })),
    },
    {
      usage: nullable(obj({ input_tokens: int, output_tokens: int, total_tokens: int })),
      previous_response_id: nullable(str),
      tools: arr({ type: 'object' }),
    },
  ),
  ResponseDeleted: deleted('response'),
  ResponseInputItem: obj({ id: str, type: oneOfEnum('message', 'function_call', 'function_call_output') }),
  ResponseInputItemList: openAiList('ResponseInputItem'),
  Model: obj(
    { id: str, object: lit('model'), created: int, owned_by: str },
    { type: str, default: bool, aliases: arr(str), dimensions: nullable(int) },
  ),
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
    {
      id: str,
      created_at: dt,
      type: oneOfEnum('ingestion', 'search', 'agentic_search', 'grep', 'completion', 'qa', 'embedding', 'reranking'),
      store_id: nullable(str),
    },
    { queue_time: dur, total_time: dur },
  ),
  StoreEventList: cursorList('StoreEvent'),
  StoreEventHistogram: obj({
    object: lit('store.histogram'),
    data: arr(obj({ bucket_start: dt, bucket_end: dt, event_count: int, type: str })),
  }),
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
  StoreCostList: obj({
    object: lit('list'),
    data: arr(obj({ store_id: str, cost: dec, cost_per_metric: { type: 'object', additionalProperties: dec } })),
  }),
  CostHistogram: obj({
    object: lit('cost.histogram'),
    data: arr(obj({ day: dt, cost: dec, cost_per_metric: { type: 'object', additionalProperties: dec } })),
  }),
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
    {
      description: nullable(str),
      expires_after: nullable({ type: 'object' }),
      expires_at: nullable(int),
      last_active_at: nullable(int),
    },
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
  VectorStoreFileContent: obj({
    object: lit('vector_store.file_content.page'),
    data: arr(obj({ type: str, text: str })),
    has_more: bool,
    next_page: nullable(str),
  }),
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
    data: arr(
      obj({
        file_id: str,
        filename: str,
        score: num,
        attributes: nullable({ type: 'object' }),
        content: arr(obj({ type: str, text: str })),
      }),
    ),
    has_more: bool,
    next_page: nullable(str),
  }),
};

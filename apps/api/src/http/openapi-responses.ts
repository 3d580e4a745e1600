/**
 * The table of operations of the OpenAPI document: operationId in the SDK's / upstream OAS's naming, tag,
 * success status and body (a schema of openapi-response-schemas.ts), deprecation, streaming.
 */

/** How an operation answers when it succeeds. */
export interface OperationSpec {
  operationId: string;
  tag: string;
  status: number;
  /** a schema name of RESPONSE_SCHEMAS; `html` / `binary` / `any-file` / `prometheus` for the answers that are not JSON */
  response: string;
  description?: string;
  /** `stream: true` answers server-sent events */
  streams?: true;
  /** accepts `X-Mxbai-Tool-Ticket` */
  toolTicket?: true;
  /** changes nothing (a POST that only reads): no 409 */
  readOnly?: true;
}

const op = (
  operationId: string,
  tag: string,
  status: number,
  response: string,
  extra: Partial<OperationSpec> = {},
): OperationSpec => ({ operationId, tag, status, response, ...extra });
const reads = { readOnly: true } as const;

/** Every operation, by `METHOD /path` (OpenAPI path templates). Upstream's operationIds where it has one; Larder's own in the same style. */
export const OPERATIONS: Record<string, OperationSpec> = {
  'GET /': op('info', 'service', 200, 'InfoResponse'),
  'GET /health/live': op('get_liveness', 'service', 200, 'Health', { description: 'the process answers (no API key)' }),
  'GET /health/ready': op('get_readiness', 'service', 200, 'HealthReady', {
    description: 'each dependency; 503 with the same body when one fails (no API key)',
  }),
  'GET /metrics': op('get_metrics', 'service', 200, 'prometheus', {
    description: 'Prometheus metrics in the text exposition format (no API key; absent with LARDER_METRICS=false)',
  }),
  'GET /v1/schemas/mxjson': op('get_mxbai_json_schema', 'service', 200, 'OpenApiDocument', {
    description: 'this document',
  }),
  'GET /openapi.json': op('get_openapi_document', 'service', 200, 'OpenApiDocument', {
    description: 'this document (the same as /v1/schemas/mxjson)',
  }),
  'GET /console': op('get_console', 'service', 200, 'html', {
    description: 'the web console (a single-page app: every path under /console/ answers this page; no API key)',
  }),
  'GET /docs': op('get_api_docs', 'service', 200, 'html', {
    description: 'interactive documentation (Swagger UI, its assets under /docs/)',
  }),

  'POST /v1/files': op('create_file', 'files', 201, 'FileObject'),
  'GET /v1/files': op('list_files', 'files', 200, 'FileList'),
  'GET /v1/files/uploads': op('list_multipart_uploads', 'files', 200, 'MultipartUploadList'),
  'POST /v1/files/uploads': op('create_multipart_upload', 'files', 201, 'MultipartUploadCreated'),
  'GET /v1/files/uploads/{upload_id}': op('get_multipart_upload', 'files', 200, 'MultipartUploadDetail'),
  'POST /v1/files/uploads/{upload_id}/complete': op('complete_multipart_upload', 'files', 200, 'FileObject'),
  'POST /v1/files/uploads/{upload_id}/abort': op('abort_multipart_upload', 'files', 200, 'FileDeleted'),
  'PUT /v1/files/uploads/{upload_id}/parts/{part_number}': op(
    'upload_multipart_part',
    'files',
    200,
    'MultipartUploadPart',
    {
      description:
        'the target of a presigned part URL: the raw bytes of the part; the signature in the query is the authority (no API key); the ETag header carries the part etag',
    },
  ),
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
  'GET /v1/trace-destinations/{trace_destination_id}': op(
    'retrieve_trace_destination',
    'trace_destinations',
    200,
    'TraceDestination',
  ),
  'PATCH /v1/trace-destinations/{trace_destination_id}': op(
    'update_trace_destination',
    'trace_destinations',
    200,
    'TraceDestination',
  ),
  'DELETE /v1/trace-destinations/{trace_destination_id}': op(
    'delete_trace_destination',
    'trace_destinations',
    200,
    'TraceDestinationDeleted',
  ),

  'POST /v1/admin/stores/{organization_id}/{store_identifier}/reingest': op(
    'reingest_all_stores',
    'admin',
    200,
    'ReingestResult',
    { description: 'administrators only' },
  ),

  'GET /v1/events': op('list_events', 'events', 200, 'StoreEventList', {
    description: "the organization's events across its stores",
  }),
  'GET /v1/stores/{store_identifier}/events': op('list_store_events', 'events', 200, 'StoreEventList'),
  'POST /v1/stores/{store_identifier}/events/histogram': op(
    'get_store_event_histogram',
    'events',
    200,
    'StoreEventHistogram',
    reads,
  ),

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
  'POST /v1/stores/{store_identifier}/files/list': op(
    'list_store_files_with_metadata_filter',
    'store_files',
    200,
    'StoreFileList',
    reads,
  ),
  'GET /v1/stores/{store_identifier}/files/{file_identifier}': op(
    'retrieve_store_file',
    'store_files',
    200,
    'StoreFile',
  ),
  'PATCH /v1/stores/{store_identifier}/files/{file_identifier}': op(
    'update_store_file',
    'store_files',
    200,
    'StoreFile',
  ),
  'DELETE /v1/stores/{store_identifier}/files/{file_identifier}': op(
    'delete_store_file',
    'store_files',
    200,
    'StoreFileDeleted',
  ),
  'GET /v1/stores/{store_identifier}/files/{file_identifier}/content': op(
    'download_store_file',
    'store_files',
    200,
    'any-file',
    {
      description:
        "the target of a store file's `content_url`: the original content in its own MIME type; the signature in the query is the authority (no API key)",
    },
  ),

  'POST /v1/stores/{store_identifier}/rules': op('create_search_rule', 'search_rules', 201, 'SearchRule'),
  'GET /v1/stores/{store_identifier}/rules/{rule_id}': op('retrieve_search_rule', 'search_rules', 200, 'SearchRule'),
  'PUT /v1/stores/{store_identifier}/rules/{rule_id}': op('update_search_rule', 'search_rules', 200, 'SearchRule'),
  'DELETE /v1/stores/{store_identifier}/rules/{rule_id}': op(
    'delete_search_rule',
    'search_rules',
    200,
    'SearchRuleDeleted',
  ),
  'DELETE /v1/stores/{store_identifier}/rules/{rule_id}/specific': op(
    'delete_specific_search_rule',
    'search_rules',
    200,
    'SearchRuleSpecificDeleted',
  ),

  'POST /v1/stores/search': op('search_store_chunks', 'search', 200, 'StoreSearchResponse', {
    streams: true,
    toolTicket: true,
    readOnly: true,
  }),
  'POST /v1/stores/files/search': op('search_store_files', 'search', 200, 'StoreFileSearchResponse', reads),
  'POST /v1/stores/question-answering': op('create_question_answering', 'search', 200, 'StoreQAResults', {
    streams: true,
    readOnly: true,
  }),
  'POST /v1/stores/grep': op('grep_store_chunks', 'search', 200, 'ScoredChunkList', {
    toolTicket: true,
    readOnly: true,
  }),
  'POST /v1/stores/list-chunks': op('list_store_chunks', 'search', 200, 'ScoredChunkList', reads),
  'POST /v1/stores/metadata-facets': op('get_metadata_facets', 'search', 200, 'MetadataFacets', reads),
  'POST /v1/chat/completions': op('create_chat_completion', 'chat', 200, 'ChatCompletion', { streams: true }),
  'POST /v1/responses': op('create_response', 'responses', 200, 'Response', { streams: true }),
  'GET /v1/responses/{response_id}': op('retrieve_response', 'responses', 200, 'Response'),
  'DELETE /v1/responses/{response_id}': op('delete_response', 'responses', 200, 'ResponseDeleted'),
  'GET /v1/responses/{response_id}/input_items': op(
    'list_response_input_items',
    'responses',
    200,
    'ResponseInputItemList',
  ),
  'POST /v1/embeddings': op('create_embeddings', 'embeddings', 200, 'EmbeddingResponse', reads),
  'POST /v1/reranking': op('rerank', 'reranking', 200, 'RerankResponse', reads),
  'GET /v1/models': op('list_models', 'models', 200, 'ModelList'),
  'GET /v1/models/{model}': op('retrieve_model', 'models', 200, 'Model', { description: 'a model id may contain `/`' }),

  'POST /v1/vector_stores': op('create_vector_store', 'vector_stores', 200, 'VectorStore'),
  'GET /v1/vector_stores': op('list_vector_stores', 'vector_stores', 200, 'VectorStoreList'),
  'GET /v1/vector_stores/{vector_store_id}': op('retrieve_vector_store', 'vector_stores', 200, 'VectorStore'),
  'POST /v1/vector_stores/{vector_store_id}': op('update_vector_store', 'vector_stores', 200, 'VectorStore'),
  'DELETE /v1/vector_stores/{vector_store_id}': op('delete_vector_store', 'vector_stores', 200, 'VectorStoreDeleted'),
  'POST /v1/vector_stores/{vector_store_id}/search': op(
    'search_vector_store',
    'vector_stores',
    200,
    'VectorStoreSearchResults',
    reads,
  ),
  'POST /v1/vector_stores/{vector_store_id}/files': op(
    'create_vector_store_file',
    'vector_stores',
    200,
    'VectorStoreFile',
  ),
  'GET /v1/vector_stores/{vector_store_id}/files': op(
    'list_vector_store_files',
    'vector_stores',
    200,
    'VectorStoreFileList',
  ),
  'GET /v1/vector_stores/{vector_store_id}/files/{file_id}': op(
    'retrieve_vector_store_file',
    'vector_stores',
    200,
    'VectorStoreFile',
  ),
  'POST /v1/vector_stores/{vector_store_id}/files/{file_id}': op(
    'update_vector_store_file_attributes',
    'vector_stores',
    200,
    'VectorStoreFile',
  ),
  'DELETE /v1/vector_stores/{vector_store_id}/files/{file_id}': op(
    'delete_vector_store_file',
    'vector_stores',
    200,
    'VectorStoreFileDeleted',
  ),
  'GET /v1/vector_stores/{vector_store_id}/files/{file_id}/content': op(
    'retrieve_vector_store_file_content',
    'vector_stores',
    200,
    'VectorStoreFileContent',
  ),
  'POST /v1/vector_stores/{vector_store_id}/file_batches': op(
    'create_vector_store_file_batch',
    'vector_stores',
    200,
    'VectorStoreFileBatch',
  ),
  'GET /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}': op(
    'retrieve_vector_store_file_batch',
    'vector_stores',
    200,
    'VectorStoreFileBatch',
  ),
  'POST /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel': op(
    'cancel_vector_store_file_batch',
    'vector_stores',
    200,
    'VectorStoreFileBatch',
  ),
  'GET /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/files': op(
    'list_vector_store_files_in_batch',
    'vector_stores',
    200,
    'VectorStoreFileList',
  ),
};

/** The query and path parameters the OpenAPI document declares. */

/** A query parameter as the document declares it. */
export interface QueryParameter {
  name: string;
  schema: Record<string, unknown>;
  required?: true;
  description?: string;
}
export const q = (
  name: string,
  schema: Record<string, unknown>,
  description?: string,
  required?: true,
): QueryParameter => ({
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
  ListFilesRequestDto: [
    ...cursorQuery,
    q('q', { type: 'string', minLength: 1, maxLength: 255 }, 'fuzzy match on the file name and description'),
  ],
  ListStoresRequestDto: [
    ...cursorQuery,
    q('q', { type: 'string', minLength: 1, maxLength: 255 }, 'fuzzy match on the store name and description'),
  ],
  ListBucketsRequestDto: cursorQuery,
  ListStoreFilesDeprecatedRequestDto: [
    ...cursorQuery,
    q('statuses', fileStatuses, 'only files in these states (repeat the key)'),
  ],
  ListApiKeysRequestDto: offsetQuery(1000, 100),
  ListTraceDestinationsRequestDto: offsetQuery(1000, 100),
  ListStoreEventsRequestDto: activityQuery,
  ListEventsRequestDto: [
    ...activityQuery,
    q('store_identifier', { type: 'string' }, 'only the events of this store (id or name)'),
  ],
  OpenAiListRequestDto: openAiListQuery,
  OpenAiFileListRequestDto: [
    ...openAiListQuery,
    q('filter', { enum: ['in_progress', 'completed', 'failed', 'cancelled'] }, 'only files in this state'),
  ],
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
  UploadPartRequestDto: [
    q('expires', { type: 'string' }, 'expiry of the signed URL (Unix seconds)', true),
    q('signature', { type: 'string' }, 'HMAC signature of the URL', true),
  ],
};

/** What the path parameters are. */
export const PATH_PARAMETERS: Record<string, string> = {
  store_identifier: 'a store id or its name',
  file_identifier: 'the file id, or its external id (which may contain `/`)',
  model: 'a model id or alias (it may contain `/`)',
  response_id: 'a response id (`resp_…`) of a stored response',
  organization_id: 'the organization the store belongs to',
  vector_store_id: 'the vector store (a store) id',
};

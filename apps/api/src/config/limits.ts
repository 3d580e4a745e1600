import { EnvReaders } from './env';

/** Sizes, lifetimes, timeouts and the pace of the background loops (ingestion, expiry, trace export). */
export interface LimitsConfig {
  consistencyTimeoutMs: number;
  /** A database call with no answer within this fails its request with 503. */
  dbQueryTimeoutMs: number;
  jsonLimit: string;
  maxFileBytes: number;
  uploadTtlMs: number;
  partUrlTtlSeconds: number;
  /** Lifetime of a chat completion's tool tickets. */
  toolTicketTtlSeconds: number;
  ingestionConcurrency: number;
  ingestionLeaseMs: number;
  ingestionAttemptTimeoutMs: number;
  ingestionMaxAttempts: number;
  ingestionRetryBaseMs: number;
  ingestionPollMs: number;
  contentUrlTtlSeconds: number;
  storeExpirySweepMs: number;
  /** Trace export to trace destinations (docs/api.md, Trace destinations). */
  traceExport: {
    /** One exchange with a destination (its check or one export), redirects included. */
    timeoutMs: number;
    pollMs: number;
    concurrency: number;
    batchSize: number;
    retryBaseMs: number;
    retryMaxMs: number;
    maxAttempts: number;
  };
}

export function loadLimitsConfig(env: NodeJS.ProcessEnv, { int }: EnvReaders): LimitsConfig {
  return {
    consistencyTimeoutMs: int('LARDER_CONSISTENCY_TIMEOUT_MS', 5000),
    dbQueryTimeoutMs: int('LARDER_DB_QUERY_TIMEOUT_MS', 30000),
    jsonLimit: env.LARDER_JSON_LIMIT || '1mb',
    maxFileBytes: int('LARDER_MAX_FILE_BYTES', 5 * 1024 ** 3),
    uploadTtlMs: int('LARDER_UPLOAD_TTL_SECONDS', 24 * 3600) * 1000,
    partUrlTtlSeconds: int('LARDER_PART_URL_TTL_SECONDS', 3600),
    toolTicketTtlSeconds: Math.max(1, int('LARDER_TOOL_TICKET_TTL_SECONDS', 900)),
    ingestionConcurrency: Math.max(1, int('LARDER_INGESTION_CONCURRENCY', 16)),
    ingestionLeaseMs: Math.max(1000, int('LARDER_INGESTION_LEASE_SECONDS', 30) * 1000),
    ingestionAttemptTimeoutMs: Math.max(1000, int('LARDER_INGESTION_ATTEMPT_TIMEOUT_SECONDS', 600) * 1000),
    ingestionMaxAttempts: Math.max(1, int('LARDER_INGESTION_MAX_ATTEMPTS', 4)),
    ingestionRetryBaseMs: int('LARDER_INGESTION_RETRY_BASE_MS', 2000),
    ingestionPollMs: Math.max(10, int('LARDER_INGESTION_POLL_MS', 500)),
    contentUrlTtlSeconds: int('LARDER_CONTENT_URL_TTL_SECONDS', 3600),
    storeExpirySweepMs: Math.max(1000, int('LARDER_STORE_EXPIRY_SWEEP_SECONDS', 60) * 1000),
    traceExport: {
      timeoutMs: Math.max(100, int('LARDER_TRACE_EXPORT_TIMEOUT_MS', 10_000)),
      pollMs: Math.max(10, int('LARDER_TRACE_EXPORT_POLL_MS', 1000)),
      concurrency: Math.min(64, Math.max(1, int('LARDER_TRACE_EXPORT_CONCURRENCY', 4))),
      batchSize: Math.min(500, Math.max(1, int('LARDER_TRACE_EXPORT_BATCH_SIZE', 20))),
      retryBaseMs: Math.max(10, int('LARDER_TRACE_EXPORT_RETRY_BASE_MS', 1000)),
      retryMaxMs: Math.max(10, int('LARDER_TRACE_EXPORT_RETRY_MAX_MS', 300_000)),
      maxAttempts: Math.max(1, int('LARDER_TRACE_EXPORT_MAX_ATTEMPTS', 20)),
    },
  };
}

import { resolve } from 'path';
import { OutboundPolicy, parseAllowList } from '@larder/outbound';
import { parseMasterKey } from '@larder/secrets';
import { DEFAULT_PARSE_LIMITS } from '@larder/ingestion/parse-thread.host';

/** Every setting Larder reads from the environment (docs/configuration.md lists them). */
export interface LarderConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Read models, checkpoints and (without EVENTSTORE_URL) the event store; unset = embedded Postgres under dataDir. */
  databaseUrl: string | null;
  /** EventStoreDB connection string; unset = the Postgres event store. */
  eventStoreUrl: string | null;
  eventStoreSchema: string;
  /** NATS server with JetStream; unset = in-process bus. */
  natsUrl: string | null;
  natsStream: string;
  natsSubjectPrefix: string;
  rootKey: string | null;
  /** Whether this process runs projections and reactors (false when a separate worker does). */
  runWorker: boolean;
  consistencyTimeoutMs: number;
  /** A database call with no answer within this fails its request with 503. */
  dbQueryTimeoutMs: number;
  jsonLimit: string;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** `local` (files under dataDir/blobs) or `s3`. */
  blobStorage: 'local' | 's3';
  s3: { bucket: string; endpoint: string | null; region: string; accessKeyId: string | null; secretAccessKey: string | null; prefix: string };
  maxFileBytes: number;
  uploadTtlMs: number;
  partUrlTtlSeconds: number;
  /** HMAC key for part URLs; unset = generated into dataDir/signing-key. */
  signingSecret: string | null;
  /** Lifetime of a chat completion's tool tickets. */
  toolTicketTtlSeconds: number;
  publicUrl: string | null;
  /** `embedded` (SQLite file under dataDir) or `elasticsearch` (ELASTICSEARCH_URL). */
  chunkIndex: 'embedded' | 'elasticsearch';
  elasticsearchUrl: string | null;
  elasticsearchIndexPrefix: string;
  /** `use-lite` (bundled, default), `openai` (any OpenAI-compatible /embeddings endpoint) or `onnx` (a local model directory). */
  embedder: 'use-lite' | 'openai' | 'onnx';
  embeddingBaseUrl: string | null;
  embeddingApiKey: string | null;
  embeddingModel: string | null;
  embeddingDimensions: number;
  embeddingBatchSize: number;
  onnxModelDir: string | null;
  onnxDtype: 'fp32' | 'fp16' | 'q8';
  onnxPooling: 'mean' | 'cls';
  /** How the bundled model runs (LARDER_USE_LITE_RUNTIME): `onnx` (onnxruntime, default; tfjs where it cannot load) or `tfjs`. Same vectors. */
  useLiteRuntime: 'onnx' | 'tfjs';
  /** JSON object of decimal prices per metric (docs/api.md, Billing); unset = the defaults. */
  billingPrices: string | null;
  billingCredit: string;
  billingAnchorDay: number;
  ivfMinVectors: number;
  ivfLists: number;
  ivfProbes: number;
  /** An embedded index file at least this large has its IVF lists read in a worker thread from the process's start (ivf.prefetch.ts). */
  ivfPrefetchMinBytes: number;
  /** The embedded index reads BM25 on a second connection in a worker thread. */
  indexReadWorker: boolean;
  searchFusion: 'relative' | 'rrf';
  searchLexicalWeight: number;
  /** Weight of the lexical list in the hybrid reranking (`larder-hybrid-rerank`) of `POST /v1/reranking`. */
  rerankLexicalWeight: number;
  /** RM3 pseudo-relevance feedback in the embedded index's BM25 query (LARDER_SEARCH_LEXICAL_FEEDBACK, default on, for long queries) */
  searchLexicalFeedback: boolean;
  /** Feedback only for queries of at least this many words that are not stop words (LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS; 0: every query; null: the index's default, 14, chosen on CISI and GCIDE). */
  searchLexicalFeedbackMinWords: number | null;
  /** The embedded index's BM25 k1, b and heading weight (LARDER_SEARCH_BM25_K1, _B, LARDER_SEARCH_HEADING_WEIGHT; null: the index's defaults, chosen on CISI) */
  searchBm25K1: number | null;
  searchBm25B: number | null;
  searchHeadingWeight: number | null;
  /** The embedded index's cache of compressed postings blocks in MiB (LARDER_SEARCH_LEXICAL_CACHE_MB, default 256): filled as queries read them. */
  searchLexicalCacheMb: number;
  /** Of that cache, MiB the read worker fills from the largest lists down once it starts, between queries (LARDER_SEARCH_LEXICAL_PRELOAD_MB, default 128; 0: none). */
  searchLexicalPreloadMb: number;
  searchCandidateFactor: number;
  listChunksMaxSortScan: number;
  /** Prepended to search queries by the onnx and openai embedders (asymmetric models such as mxbai). */
  embeddingQueryPrefix: string | null;
  ingestionConcurrency: number;
  ingestionLeaseMs: number;
  ingestionAttemptTimeoutMs: number;
  ingestionMaxAttempts: number;
  ingestionRetryBaseMs: number;
  ingestionPollMs: number;
  contentUrlTtlSeconds: number;
  storeExpirySweepMs: number;
  /** Images are read by OCR (tesseract.js, English data from npm) when true (LARDER_OCR, default true); else they fail as unsupported. */
  ocr: boolean;
  /** Images with more pixels are refused before OCR (LARDER_OCR_MAX_PIXELS). */
  ocrMaxPixels: number;
  /** Longest OCR of one image (LARDER_OCR_TIMEOUT_MS); a timeout is retried like other transient failures. */
  ocrTimeoutMs: number;
  /** A PDF/DOCX parse's decompressed-size budget and thread heap (LARDER_PARSE_MAX_INFLATED_MB, LARDER_PARSE_MAX_HEAP_MB). */
  parseLimits: { maxInflatedBytes: number; maxHeapMb: number };
  /** OpenAI-compatible base URL up to `/chat/completions`; unset = no LLM (answering runs without one). */
  llmUrl: string | null;
  llmApiKey: string | null;
  /** Required with llmUrl. */
  llmModel: string | null;
  /** Until the first byte of an answer (the whole answer when not streamed), retries included. */
  llmTimeoutMs: number;
  /** Longest silence between two chunks of a streamed answer. */
  llmStreamIdleTimeoutMs: number;
  /** Retries of 408/429/5xx/network failures before an answer started. */
  llmMaxRetries: number;
  /** The most bytes read of one model answer (LARDER_LLM_MAX_RESPONSE_BYTES). */
  llmMaxResponseBytes: number;
  /** Web search providers of the web store (`mixedbread/web`), in order; empty = none (the web part is skipped). */
  webSearchProviders: Array<'searxng' | 'brave'>;
  searxngUrl: string | null;
  braveApiKey: string | null;
  braveUrl: string | null;
  /** Per provider call, its one retry included. */
  webSearchTimeoutMs: number;
  /** Results asked of each provider. */
  webSearchMaxResults: number;
  /** Largest provider answer read. */
  webSearchMaxBytes: number;
  /** The cross-encoder behind `rerank`: none (rerank changes nothing), a local ONNX export, or a rerank endpoint. */
  reranker: 'none' | 'onnx' | 'http';
  rerankerModelDir: string | null;
  rerankerDtype: 'fp32' | 'fp16' | 'q8';
  rerankerBatchSize: number;
  /** Tokens of one (query, document) pair for the ONNX reranker. */
  rerankerMaxLength: number;
  rerankerUrl: string | null;
  rerankerApiKey: string | null;
  /** The model the endpoint is asked for (required with http); the name of an ONNX one. */
  rerankerModel: string | null;
  rerankerFormat: 'mixedbread' | 'cohere' | 'jina';
  /** Per attempt. */
  rerankerTimeoutMs: number;
  rerankerMaxRetries: number;
  rerankerMaxBytes: number;
  /** Other names for served models (LARDER_MODEL_ALIASES `alias=model,…`): `/v1/embeddings` and `/v1/reranking` answer them with that model. */
  modelAliases: Record<string, string>;
  /** The master key sealing stored credentials (base64 or hex, 32 bytes); unset = a keyring file generated into dataDir. */
  secretsKey: string | null;
  /** Older master keys that still open secrets until `secrets rotate` re-seals them. */
  secretsPreviousKeys: string | null;
  /** Addresses, CIDRs or host names (each with an optional :port) that tenant-supplied URLs may reach although special-purpose. */
  outboundAllow: string[];
  /** How Larder assumes customers' roles (assume_role buckets): an STS-compatible endpoint (null: AWS's regional STS), its region, and Larder's own identity (null: the AWS SDK's default credential chain). */
  sts: { endpoint: string | null; region: string; accessKeyId: string | null; secretAccessKey: string | null; sessionToken: string | null };
  /** Deadline of one request to a customer bucket (the connection itself: at most 5 s). */
  bucketRequestTimeoutMs: number;
  /** Whether the web console is served at /console (LARDER_CONSOLE, default true). */
  console: boolean;
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

/**
 * The fusion's defaults, per embedder, chosen by measurement (bench/search-quality.bench.ts;
 * docs/benchmarks.md): on CISI and GCIDE → WordNet the bundled USE-lite model is much weaker than BM25 and
 * earns a smaller share (with the own BM25 engine, 0.8 lexical is best on CISI and ties 0.7 on GCIDE, at nDCG@10 and recall@100). Models behind an endpoint or an ONNX directory are not measured
 * here (none can be had offline) and keep an even share until one is.
 */
export const DEFAULT_FUSION: { method: 'relative' | 'rrf'; lexicalWeight: Record<LarderConfig['embedder'], number> } = {
  method: 'relative',
  lexicalWeight: { 'use-lite': 0.8, openai: 0.5, onnx: 0.5 },
};

/**
 * The fusion of `POST /v1/reranking` without a reranking model (`larder-hybrid-rerank`), per embedder,
 * chosen by measurement (bench/reranking-quality.bench.ts; docs/benchmarks.md, reranking):
 * BM25 over the few documents of one request has poorer statistics than over a collection, so the
 * embedding earns a larger share than in a store search. Other embedders are not measured here.
 */
export const DEFAULT_RERANK_FUSION: { method: 'relative'; lexicalWeight: Record<LarderConfig['embedder'], number> } = {
  method: 'relative',
  lexicalWeight: { 'use-lite': 0.5, openai: 0.5, onnx: 0.5 },
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): LarderConfig {
  const int = (name: string, def: number) => {
    const v = env[name];
    if (v === undefined || v === '') return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  /** A decimal in [min, max], or null when unset. */
  const decimal = (name: string, min: number, max: number) => {
    const v = env[name];
    if (v === undefined || v === '') return null;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number from ${min} to ${max}, got ${v}`);
    return n;
  };
  const bool = (name: string, def: boolean) => {
    const v = env[name];
    if (v === undefined || v === '') return def;
    return ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
  };
  const embedder = (
    ['use-lite', 'openai', 'onnx'].includes(env.LARDER_EMBEDDER ?? '') ? env.LARDER_EMBEDDER : env.LARDER_EMBEDDING_URL ? 'openai' : env.LARDER_ONNX_MODEL_DIR ? 'onnx' : 'use-lite'
  ) as LarderConfig['embedder'];
  const rootKey = env.LARDER_ROOT_KEY || null;
  const llmUrl = env.LARDER_LLM_URL || null;
  const llmModel = env.LARDER_LLM_MODEL || null;
  if (llmUrl !== null) {
    // the URL is not echoed: it may carry a secret in its query
    if (!URL.canParse(llmUrl) || !/^https?:$/.test(new URL(llmUrl).protocol)) throw new Error('LARDER_LLM_URL must be an http(s) URL such as http://127.0.0.1:11434/v1');
    if (new URL(llmUrl).username || new URL(llmUrl).password) throw new Error('LARDER_LLM_URL must not carry credentials; set LARDER_LLM_API_KEY instead');
    if (llmModel === null) throw new Error('LARDER_LLM_URL is set but LARDER_LLM_MODEL is not: name the model to ask (e.g. LARDER_LLM_MODEL=llama3.1:8b or gpt-4o-mini)');
  }
  const searxngUrl = env.LARDER_SEARXNG_URL || null;
  const braveApiKey = env.LARDER_BRAVE_API_KEY || null;
  const braveUrl = env.LARDER_BRAVE_URL || null;
  const WEB_PROVIDERS = ['searxng', 'brave'] as const;
  let webSearchProviders: LarderConfig['webSearchProviders'];
  if (env.LARDER_WEB_SEARCH_PROVIDERS !== undefined && env.LARDER_WEB_SEARCH_PROVIDERS.trim() !== '') {
    // `none` turns the web store off even where a provider's settings are present
    const names = [...new Set(env.LARDER_WEB_SEARCH_PROVIDERS.split(',').map((x) => x.trim().toLowerCase()))].filter((x) => x && x !== 'none');
    const unknown = names.filter((n) => !(WEB_PROVIDERS as readonly string[]).includes(n));
    if (unknown.length) throw new Error(`LARDER_WEB_SEARCH_PROVIDERS lists unknown providers (${unknown.join(', ')}); known: ${WEB_PROVIDERS.join(', ')} (comma-separated), or none`);
    webSearchProviders = names as LarderConfig['webSearchProviders'];
  } else {
    webSearchProviders = [...(searxngUrl ? ['searxng' as const] : []), ...(braveApiKey ? ['brave' as const] : [])];
  }
  if (webSearchProviders.includes('searxng')) {
    if (!searxngUrl) throw new Error('LARDER_WEB_SEARCH_PROVIDERS lists searxng but LARDER_SEARXNG_URL is not set (the base URL of a SearXNG instance with the json format enabled)');
    if (!URL.canParse(searxngUrl) || !/^https?:$/.test(new URL(searxngUrl).protocol)) throw new Error('LARDER_SEARXNG_URL must be an http(s) URL such as http://127.0.0.1:8888');
    if (new URL(searxngUrl).username || new URL(searxngUrl).password) throw new Error('LARDER_SEARXNG_URL must not carry credentials');
  }
  if (webSearchProviders.includes('brave') && !braveApiKey) throw new Error('LARDER_WEB_SEARCH_PROVIDERS lists brave but LARDER_BRAVE_API_KEY is not set (a Brave Search API subscription token)');
  if (braveUrl !== null && (!URL.canParse(braveUrl) || !/^https?:$/.test(new URL(braveUrl).protocol) || new URL(braveUrl).username || new URL(braveUrl).password)) {
    throw new Error('LARDER_BRAVE_URL must be an http(s) URL without credentials');
  }
  const rerankerUrl = env.LARDER_RERANKER_URL || null;
  const rerankerModelDir = env.LARDER_RERANKER_MODEL_DIR || null;
  const rerankerModel = env.LARDER_RERANKER_MODEL || null;
  const RERANKERS = ['none', 'onnx', 'http'] as const;
  const rerankerName = (env.LARDER_RERANKER ?? '').trim().toLowerCase();
  if (rerankerName && !(RERANKERS as readonly string[]).includes(rerankerName)) throw new Error(`LARDER_RERANKER must be one of ${RERANKERS.join(', ')}, got ${rerankerName}`);
  const reranker = (rerankerName || (rerankerUrl ? 'http' : rerankerModelDir ? 'onnx' : 'none')) as LarderConfig['reranker'];
  const FORMATS = ['mixedbread', 'cohere', 'jina'] as const;
  const rerankerFormat = (env.LARDER_RERANKER_FORMAT || 'mixedbread').trim().toLowerCase();
  if (!(FORMATS as readonly string[]).includes(rerankerFormat)) throw new Error(`LARDER_RERANKER_FORMAT must be one of ${FORMATS.join(', ')}, got ${rerankerFormat}`);
  if (reranker === 'http') {
    // the URL is not echoed: it may carry a secret in its query
    if (!rerankerUrl) throw new Error('LARDER_RERANKER=http needs LARDER_RERANKER_URL (e.g. https://api.mixedbread.com/v1, https://api.cohere.com/v2 or https://api.jina.ai/v1)');
    if (!URL.canParse(rerankerUrl) || !/^https?:$/.test(new URL(rerankerUrl).protocol)) throw new Error('LARDER_RERANKER_URL must be an http(s) URL such as https://api.mixedbread.com/v1');
    if (new URL(rerankerUrl).username || new URL(rerankerUrl).password) throw new Error('LARDER_RERANKER_URL must not carry credentials; set LARDER_RERANKER_API_KEY instead');
    if (!rerankerModel) throw new Error('LARDER_RERANKER=http needs LARDER_RERANKER_MODEL (e.g. mixedbread-ai/mxbai-rerank-large-v2, rerank-v3.5 or jina-reranker-v2-base-multilingual)');
  }
  if (reranker === 'onnx' && !rerankerModelDir) throw new Error('LARDER_RERANKER=onnx needs LARDER_RERANKER_MODEL_DIR (a Hugging Face ONNX export of a cross-encoder)');
  if (rootKey !== null && rootKey.length < 24) throw new Error('LARDER_ROOT_KEY must be at least 24 characters long');
  // fail at start, not at the first bucket: a malformed master key or allow-list entry
  if (env.LARDER_SECRETS_KEY) parseMasterKey(env.LARDER_SECRETS_KEY);
  for (const k of (env.LARDER_SECRETS_PREVIOUS_KEYS ?? '').split(',').filter((x) => x.trim())) parseMasterKey(k, 'LARDER_SECRETS_PREVIOUS_KEYS');
  new OutboundPolicy(parseAllowList(env.LARDER_OUTBOUND_ALLOW ?? ''));
  const modelAliases = parseModelAliases(env.LARDER_MODEL_ALIASES ?? '');
  const stsEndpoint = env.LARDER_STS_ENDPOINT || null;
  if (stsEndpoint && (!URL.canParse(stsEndpoint) || !/^https?:$/.test(new URL(stsEndpoint).protocol)))
    throw new Error('LARDER_STS_ENDPOINT must be an http(s) URL such as https://sts.eu-west-1.amazonaws.com');
  if (!!env.LARDER_STS_ACCESS_KEY_ID !== !!env.LARDER_STS_SECRET_ACCESS_KEY) throw new Error('LARDER_STS_ACCESS_KEY_ID and LARDER_STS_SECRET_ACCESS_KEY go together');
  return {
    modelAliases,
    port: int('PORT', 8000),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.LARDER_DATA_DIR || './data'),
    secretsKey: env.LARDER_SECRETS_KEY || null,
    secretsPreviousKeys: env.LARDER_SECRETS_PREVIOUS_KEYS || null,
    outboundAllow: parseAllowList(env.LARDER_OUTBOUND_ALLOW ?? ''),
    sts: {
      endpoint: stsEndpoint,
      region: env.LARDER_STS_REGION || 'us-east-1',
      accessKeyId: env.LARDER_STS_ACCESS_KEY_ID || null,
      secretAccessKey: env.LARDER_STS_SECRET_ACCESS_KEY || null,
      sessionToken: env.LARDER_STS_SESSION_TOKEN || null,
    },
    bucketRequestTimeoutMs: int('LARDER_BUCKET_REQUEST_TIMEOUT_MS', 30000),
    databaseUrl: env.DATABASE_URL || null,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    eventStoreSchema: env.LARDER_EVENTS_SCHEMA || 'larder_events',
    natsUrl: env.NATS_URL || null,
    natsStream: env.LARDER_NATS_STREAM || 'LARDER_EVENTS',
    natsSubjectPrefix: env.LARDER_NATS_SUBJECT_PREFIX || 'larder',
    rootKey,
    runWorker: bool('LARDER_RUN_WORKER', true),
    console: bool('LARDER_CONSOLE', true),
    consistencyTimeoutMs: int('LARDER_CONSISTENCY_TIMEOUT_MS', 5000),
    dbQueryTimeoutMs: int('LARDER_DB_QUERY_TIMEOUT_MS', 30000),
    jsonLimit: env.LARDER_JSON_LIMIT || '1mb',
    logLevel: (env.LARDER_LOG_LEVEL as LarderConfig['logLevel']) || 'log',
    blobStorage: env.LARDER_BLOB_STORAGE === 's3' ? 's3' : 'local',
    s3: {
      bucket: env.LARDER_S3_BUCKET || 'larder',
      endpoint: env.LARDER_S3_ENDPOINT || null,
      region: env.LARDER_S3_REGION || 'us-east-1',
      accessKeyId: env.LARDER_S3_ACCESS_KEY_ID || null,
      secretAccessKey: env.LARDER_S3_SECRET_ACCESS_KEY || null,
      prefix: env.LARDER_S3_PREFIX || '',
    },
    maxFileBytes: int('LARDER_MAX_FILE_BYTES', 5 * 1024 ** 3),
    uploadTtlMs: int('LARDER_UPLOAD_TTL_SECONDS', 24 * 3600) * 1000,
    partUrlTtlSeconds: int('LARDER_PART_URL_TTL_SECONDS', 3600),
    signingSecret: env.LARDER_SIGNING_SECRET || null,
    toolTicketTtlSeconds: Math.max(1, int('LARDER_TOOL_TICKET_TTL_SECONDS', 900)),
    publicUrl: env.LARDER_PUBLIC_URL || null,
    chunkIndex: env.ELASTICSEARCH_URL ? 'elasticsearch' : 'embedded',
    elasticsearchUrl: env.ELASTICSEARCH_URL || null,
    elasticsearchIndexPrefix: env.LARDER_ES_INDEX_PREFIX || 'larder-',
    embedder,
    embeddingBaseUrl: env.LARDER_EMBEDDING_URL || null,
    embeddingApiKey: env.LARDER_EMBEDDING_API_KEY || null,
    embeddingModel: env.LARDER_EMBEDDING_MODEL || null,
    embeddingDimensions: int('LARDER_EMBEDDING_DIMENSIONS', 0),
    embeddingBatchSize: int('LARDER_EMBEDDING_BATCH_SIZE', 64),
    onnxModelDir: env.LARDER_ONNX_MODEL_DIR || null,
    useLiteRuntime: ((): LarderConfig['useLiteRuntime'] => {
      const v = env.LARDER_USE_LITE_RUNTIME || 'onnx';
      if (v !== 'onnx' && v !== 'tfjs') throw new Error('LARDER_USE_LITE_RUNTIME must be onnx (default) or tfjs');
      return v;
    })(),
    onnxDtype: (['fp32', 'fp16', 'q8'].includes(env.LARDER_ONNX_DTYPE ?? '') ? env.LARDER_ONNX_DTYPE : 'fp32') as LarderConfig['onnxDtype'],
    onnxPooling: env.LARDER_ONNX_POOLING === 'cls' ? 'cls' : 'mean',
    embeddingQueryPrefix: env.LARDER_EMBEDDING_QUERY_PREFIX || null,
    billingPrices: env.LARDER_BILLING_PRICES || null,
    billingCredit: env.LARDER_BILLING_CREDIT || '0',
    billingAnchorDay: Math.min(28, Math.max(1, int('LARDER_BILLING_PERIOD_START_DAY', 1))),
    ivfMinVectors: Math.max(1000, int('LARDER_IVF_MIN_VECTORS', 20_000)),
    // 0: by the vectors trained on (ivfListsFor); otherwise 16 to 4,096
    ivfLists: int('LARDER_IVF_LISTS', 0) && Math.min(4096, Math.max(16, int('LARDER_IVF_LISTS', 0))),
    ivfPrefetchMinBytes: Math.max(0, int('LARDER_IVF_PREFETCH_MIN_BYTES', 128 * 2 ** 20)),
    ivfProbes: Math.max(1, int('LARDER_IVF_PROBES', 16)),
    indexReadWorker: bool('LARDER_INDEX_READ_WORKER', true),
    searchFusion: env.LARDER_SEARCH_FUSION === 'rrf' ? 'rrf' : env.LARDER_SEARCH_FUSION === 'relative' ? 'relative' : DEFAULT_FUSION.method,
    searchLexicalWeight: Math.min(1, Math.max(0, Number(env.LARDER_SEARCH_LEXICAL_WEIGHT ?? DEFAULT_FUSION.lexicalWeight[embedder]) || 0)),
    searchLexicalFeedback: bool('LARDER_SEARCH_LEXICAL_FEEDBACK', true),
    searchLexicalFeedbackMinWords: env.LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS ? int('LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS', 0) : null,
    searchBm25K1: decimal('LARDER_SEARCH_BM25_K1', 0, 100),
    searchBm25B: decimal('LARDER_SEARCH_BM25_B', 0, 1),
    searchHeadingWeight: decimal('LARDER_SEARCH_HEADING_WEIGHT', 0, 100),
    searchLexicalCacheMb: Math.max(1, int('LARDER_SEARCH_LEXICAL_CACHE_MB', 256)),
    searchLexicalPreloadMb: Math.max(0, int('LARDER_SEARCH_LEXICAL_PRELOAD_MB', 128)),
    rerankLexicalWeight: Math.min(1, Math.max(0, Number(env.LARDER_RERANK_LEXICAL_WEIGHT ?? DEFAULT_RERANK_FUSION.lexicalWeight[embedder]) || 0)),
    searchCandidateFactor: Math.max(1, int('LARDER_SEARCH_CANDIDATE_FACTOR', 5)),
    listChunksMaxSortScan: Math.max(1000, int('LARDER_LIST_CHUNKS_MAX_SORT_SCAN', 200_000)),
    ingestionConcurrency: Math.max(1, int('LARDER_INGESTION_CONCURRENCY', 2)),
    ingestionLeaseMs: Math.max(1000, int('LARDER_INGESTION_LEASE_SECONDS', 30) * 1000),
    ingestionAttemptTimeoutMs: Math.max(1000, int('LARDER_INGESTION_ATTEMPT_TIMEOUT_SECONDS', 600) * 1000),
    ingestionMaxAttempts: Math.max(1, int('LARDER_INGESTION_MAX_ATTEMPTS', 4)),
    ingestionRetryBaseMs: int('LARDER_INGESTION_RETRY_BASE_MS', 2000),
    ingestionPollMs: Math.max(10, int('LARDER_INGESTION_POLL_MS', 500)),
    contentUrlTtlSeconds: int('LARDER_CONTENT_URL_TTL_SECONDS', 3600),
    storeExpirySweepMs: Math.max(1000, int('LARDER_STORE_EXPIRY_SWEEP_SECONDS', 60) * 1000),
    ocr: bool('LARDER_OCR', true),
    ocrMaxPixels: Math.max(1, int('LARDER_OCR_MAX_PIXELS', 25_000_000)),
    ocrTimeoutMs: Math.max(1000, int('LARDER_OCR_TIMEOUT_MS', 120_000)),
    parseLimits: {
      maxInflatedBytes: Math.max(1, int('LARDER_PARSE_MAX_INFLATED_MB', DEFAULT_PARSE_LIMITS.maxInflatedBytes / 2 ** 20)) * 2 ** 20,
      maxHeapMb: Math.max(64, int('LARDER_PARSE_MAX_HEAP_MB', DEFAULT_PARSE_LIMITS.maxHeapMb)),
    },
    llmUrl,
    llmApiKey: env.LARDER_LLM_API_KEY || null,
    llmModel,
    llmTimeoutMs: Math.max(1, int('LARDER_LLM_TIMEOUT_MS', 60_000)),
    llmStreamIdleTimeoutMs: Math.max(1, int('LARDER_LLM_STREAM_IDLE_TIMEOUT_MS', 30_000)),
    llmMaxRetries: int('LARDER_LLM_MAX_RETRIES', 2),
    llmMaxResponseBytes: Math.max(1024, int('LARDER_LLM_MAX_RESPONSE_BYTES', 8 * 1024 * 1024)),
    webSearchProviders,
    searxngUrl,
    braveApiKey,
    braveUrl,
    webSearchTimeoutMs: Math.max(1, int('LARDER_WEB_SEARCH_TIMEOUT_MS', 5000)),
    webSearchMaxResults: Math.min(50, Math.max(1, int('LARDER_WEB_SEARCH_MAX_RESULTS', 20))),
    webSearchMaxBytes: Math.max(1024, int('LARDER_WEB_SEARCH_MAX_BYTES', 2 * 1024 * 1024)),
    reranker,
    rerankerModelDir,
    rerankerDtype: (['fp32', 'fp16', 'q8'].includes(env.LARDER_RERANKER_DTYPE ?? '') ? env.LARDER_RERANKER_DTYPE : 'fp32') as LarderConfig['rerankerDtype'],
    rerankerBatchSize: Math.max(1, int('LARDER_RERANKER_BATCH_SIZE', reranker === 'onnx' ? 16 : 100)),
    rerankerMaxLength: Math.max(8, int('LARDER_RERANKER_MAX_LENGTH', 512)),
    rerankerUrl,
    rerankerApiKey: env.LARDER_RERANKER_API_KEY || null,
    rerankerModel,
    rerankerFormat: rerankerFormat as LarderConfig['rerankerFormat'],
    rerankerTimeoutMs: Math.max(1, int('LARDER_RERANKER_TIMEOUT_MS', 10_000)),
    rerankerMaxRetries: Math.min(5, int('LARDER_RERANKER_MAX_RETRIES', 2)),
    rerankerMaxBytes: Math.max(1024, int('LARDER_RERANKER_MAX_BYTES', 4 * 1024 * 1024)),
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

/**
 * `LARDER_MODEL_ALIASES`: comma-separated `alias=model` pairs (`mixedbread-ai/mxbai-embed-large-v1=universal-sentence-encoder-lite`).
 * Whether each model is served is checked when the server starts (it knows its models then).
 */
export function parseModelAliases(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    const alias = pair.slice(0, eq).trim();
    const model = pair.slice(eq + 1).trim();
    if (eq < 0 || !alias || !model) throw new Error(`LARDER_MODEL_ALIASES: ${JSON.stringify(pair)} is not alias=model (pairs are separated by commas)`);
    if (out[alias] !== undefined && out[alias] !== model) throw new Error(`LARDER_MODEL_ALIASES maps ${alias} twice`);
    out[alias] = model;
  }
  return out;
}

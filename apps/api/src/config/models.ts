import { DEFAULT_PARSE_LIMITS } from '@larder/ingestion/parse-thread.host';
import { availableParallelism } from 'os';
import { EnvReaders } from './env';

/** The models Larder runs or calls: embedder, chat model, reranker, OCR, and aliases of their names. */
export interface ModelsConfig {
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
  /**
   * The bundled model's document sessions (LARDER_EMBED_WORKERS; default one per two cores) and the
   * threads each runs on (the cores shared out among them, at least one); the query session's threads
   * (LARDER_QUERY_EMBED_THREADS).
   */
  embedWorkers: { workers: number; threads: number; queryThreads: number };
  /** Prepended to search queries by the onnx and openai embedders (asymmetric models such as mxbai). */
  embeddingQueryPrefix: string | null;
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
}

export function loadModelsConfig(env: NodeJS.ProcessEnv, { int, bool }: EnvReaders): ModelsConfig {
  const embedder = (
    ['use-lite', 'openai', 'onnx'].includes(env.LARDER_EMBEDDER ?? '')
      ? env.LARDER_EMBEDDER
      : env.LARDER_EMBEDDING_URL
        ? 'openai'
        : env.LARDER_ONNX_MODEL_DIR
          ? 'onnx'
          : 'use-lite'
  ) as ModelsConfig['embedder'];
  const llmUrl = env.LARDER_LLM_URL || null;
  const llmModel = env.LARDER_LLM_MODEL || null;
  if (llmUrl !== null) {
    // the URL is not echoed: it may carry a secret in its query
    if (!URL.canParse(llmUrl) || !/^https?:$/.test(new URL(llmUrl).protocol))
      throw new Error('LARDER_LLM_URL must be an http(s) URL such as http://127.0.0.1:11434/v1');
    if (new URL(llmUrl).username || new URL(llmUrl).password)
      throw new Error('LARDER_LLM_URL must not carry credentials; set LARDER_LLM_API_KEY instead');
    if (llmModel === null)
      throw new Error(
        'LARDER_LLM_URL is set but LARDER_LLM_MODEL is not: name the model to ask (e.g. LARDER_LLM_MODEL=llama3.1:8b or gpt-4o-mini)',
      );
  }
  const rerankerUrl = env.LARDER_RERANKER_URL || null;
  const rerankerModelDir = env.LARDER_RERANKER_MODEL_DIR || null;
  const rerankerModel = env.LARDER_RERANKER_MODEL || null;
  const RERANKERS = ['none', 'onnx', 'http'] as const;
  const rerankerName = (env.LARDER_RERANKER ?? '').trim().toLowerCase();
  if (rerankerName && !(RERANKERS as readonly string[]).includes(rerankerName))
    throw new Error(`LARDER_RERANKER must be one of ${RERANKERS.join(', ')}, got ${rerankerName}`);
  const reranker = (rerankerName ||
    (rerankerUrl ? 'http' : rerankerModelDir ? 'onnx' : 'none')) as ModelsConfig['reranker'];
  const FORMATS = ['mixedbread', 'cohere', 'jina'] as const;
  const rerankerFormat = (env.LARDER_RERANKER_FORMAT || 'mixedbread').trim().toLowerCase();
  if (!(FORMATS as readonly string[]).includes(rerankerFormat))
    throw new Error(`LARDER_RERANKER_FORMAT must be one of ${FORMATS.join(', ')}, got ${rerankerFormat}`);
  if (reranker === 'http') {
    // the URL is not echoed: it may carry a secret in its query
    if (!rerankerUrl)
      throw new Error(
        'LARDER_RERANKER=http needs LARDER_RERANKER_URL (e.g. https://api.mixedbread.com/v1, https://api.cohere.com/v2 or https://api.jina.ai/v1)',
      );
    if (!URL.canParse(rerankerUrl) || !/^https?:$/.test(new URL(rerankerUrl).protocol))
      throw new Error('LARDER_RERANKER_URL must be an http(s) URL such as https://api.mixedbread.com/v1');
    if (new URL(rerankerUrl).username || new URL(rerankerUrl).password)
      throw new Error('LARDER_RERANKER_URL must not carry credentials; set LARDER_RERANKER_API_KEY instead');
    if (!rerankerModel)
      throw new Error(
        'LARDER_RERANKER=http needs LARDER_RERANKER_MODEL (e.g. mixedbread-ai/mxbai-rerank-large-v2, rerank-v3.5 or jina-reranker-v2-base-multilingual)',
      );
  }
  if (reranker === 'onnx' && !rerankerModelDir)
    throw new Error(
      'LARDER_RERANKER=onnx needs LARDER_RERANKER_MODEL_DIR (a Hugging Face ONNX export of a cross-encoder)',
    );
  const modelAliases = parseModelAliases(env.LARDER_MODEL_ALIASES ?? '');
  return {
    modelAliases,
    embedder,
    embeddingBaseUrl: env.LARDER_EMBEDDING_URL || null,
    embeddingApiKey: env.LARDER_EMBEDDING_API_KEY || null,
    embeddingModel: env.LARDER_EMBEDDING_MODEL || null,
    embeddingDimensions: int('LARDER_EMBEDDING_DIMENSIONS', 0),
    embeddingBatchSize: int('LARDER_EMBEDDING_BATCH_SIZE', 64),
    onnxModelDir: env.LARDER_ONNX_MODEL_DIR || null,
    useLiteRuntime: ((): ModelsConfig['useLiteRuntime'] => {
      const v = env.LARDER_USE_LITE_RUNTIME || 'onnx';
      if (v !== 'onnx' && v !== 'tfjs') throw new Error('LARDER_USE_LITE_RUNTIME must be onnx (default) or tfjs');
      return v;
    })(),
    embedWorkers: (() => {
      const cores = availableParallelism();
      const workers = Math.max(1, int('LARDER_EMBED_WORKERS', Math.floor(cores / 2)));
      const threads = Math.max(1, Math.floor(cores / workers));
      return { workers, threads, queryThreads: Math.max(1, int('LARDER_QUERY_EMBED_THREADS', threads)) };
    })(),
    onnxDtype: (['fp32', 'fp16', 'q8'].includes(env.LARDER_ONNX_DTYPE ?? '')
      ? env.LARDER_ONNX_DTYPE
      : 'fp32') as ModelsConfig['onnxDtype'],
    onnxPooling: env.LARDER_ONNX_POOLING === 'cls' ? 'cls' : 'mean',
    embeddingQueryPrefix: env.LARDER_EMBEDDING_QUERY_PREFIX || null,
    ocr: bool('LARDER_OCR', true),
    ocrMaxPixels: Math.max(1, int('LARDER_OCR_MAX_PIXELS', 25_000_000)),
    ocrTimeoutMs: Math.max(1000, int('LARDER_OCR_TIMEOUT_MS', 120_000)),
    parseLimits: {
      maxInflatedBytes:
        Math.max(1, int('LARDER_PARSE_MAX_INFLATED_MB', DEFAULT_PARSE_LIMITS.maxInflatedBytes / 2 ** 20)) * 2 ** 20,
      maxHeapMb: Math.max(64, int('LARDER_PARSE_MAX_HEAP_MB', DEFAULT_PARSE_LIMITS.maxHeapMb)),
    },
    llmUrl,
    llmApiKey: env.LARDER_LLM_API_KEY || null,
    llmModel,
    llmTimeoutMs: Math.max(1, int('LARDER_LLM_TIMEOUT_MS', 60_000)),
    llmStreamIdleTimeoutMs: Math.max(1, int('LARDER_LLM_STREAM_IDLE_TIMEOUT_MS', 30_000)),
    llmMaxRetries: int('LARDER_LLM_MAX_RETRIES', 2),
    llmMaxResponseBytes: Math.max(1024, int('LARDER_LLM_MAX_RESPONSE_BYTES', 8 * 1024 * 1024)),
    reranker,
    rerankerModelDir,
    rerankerDtype: (['fp32', 'fp16', 'q8'].includes(env.LARDER_RERANKER_DTYPE ?? '')
      ? env.LARDER_RERANKER_DTYPE
      : 'fp32') as ModelsConfig['rerankerDtype'],
    rerankerBatchSize: Math.max(1, int('LARDER_RERANKER_BATCH_SIZE', reranker === 'onnx' ? 16 : 100)),
    rerankerMaxLength: Math.max(8, int('LARDER_RERANKER_MAX_LENGTH', 512)),
    rerankerUrl,
    rerankerApiKey: env.LARDER_RERANKER_API_KEY || null,
    rerankerModel,
    rerankerFormat: rerankerFormat as ModelsConfig['rerankerFormat'],
    rerankerTimeoutMs: Math.max(1, int('LARDER_RERANKER_TIMEOUT_MS', 10_000)),
    rerankerMaxRetries: Math.min(5, int('LARDER_RERANKER_MAX_RETRIES', 2)),
    rerankerMaxBytes: Math.max(1024, int('LARDER_RERANKER_MAX_BYTES', 4 * 1024 * 1024)),
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
    if (eq < 0 || !alias || !model)
      throw new Error(
        `LARDER_MODEL_ALIASES: ${JSON.stringify(pair)} is not alias=model (pairs are separated by commas)`,
      );
    if (out[alias] !== undefined && out[alias] !== model) throw new Error(`LARDER_MODEL_ALIASES maps ${alias} twice`);
    out[alias] = model;
  }
  return out;
}

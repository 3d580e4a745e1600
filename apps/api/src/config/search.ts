import { availableParallelism } from 'os';
import { EnvReaders } from './env';
import type { ModelsConfig } from './models';
import type { FusionMethod } from '@larder/search/ranking';

/** The embedded index's vector and BM25 settings, the fusion of their lists, and the web store's providers. */
export interface SearchConfig {
  ivfMinVectors: number;
  ivfLists: number;
  ivfProbes: number;
  /** An embedded index file at least this large has its IVF lists read in a worker thread from the process's start (ivf.prefetch.ts). */
  ivfPrefetchMinBytes: number;
  /** The embedded index reads BM25 on a second connection in a worker thread. */
  indexReadWorker: boolean;
  searchFusion: FusionMethod;
  searchLexicalWeight: number;
  /** Weight of the lexical list in the hybrid reranking (`larder-hybrid-rerank`) of `POST /v1/reranking`. */
  rerankLexicalWeight: number;
  /** RM3 pseudo-relevance feedback in the embedded index's BM25 query (LARDER_SEARCH_LEXICAL_FEEDBACK, default on, for long queries) */
  searchLexicalFeedback: boolean;
  /** Feedback only for queries of at least this many words that are not stop words (LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS; 0: every query; null: the index's default, 14, chosen on CISI and GCIDE). */
  searchLexicalFeedbackMinWords: number | null;
  /** The embedded index's BM25 k1, b, b for a store of code, b for a store of multi-chunk files and heading weight (LARDER_SEARCH_BM25_K1, _B, _CODE_B, _MULTI_CHUNK_B, LARDER_SEARCH_HEADING_WEIGHT; null: the index's defaults, chosen on the tuning sets) */
  searchBm25K1: number | null;
  searchBm25B: number | null;
  searchBm25CodeB: number | null;
  searchBm25MultiChunkB: number | null;
  searchHeadingWeight: number | null;
  /** The embedded index's cache of compressed postings blocks in MiB (LARDER_SEARCH_LEXICAL_CACHE_MB, default 256): filled as queries read them. */
  searchLexicalCacheMb: number;
  /** The embedded index's exact scans' vectors kept in memory, MiB (LARDER_SEARCH_EXACT_SCAN_CACHE_MB, default 128; 0: none kept). */
  searchExactScanCacheMb: number;
  /** Of that cache, MiB the read worker fills from the largest lists down once it starts, between queries (LARDER_SEARCH_LEXICAL_PRELOAD_MB, default 128; 0: none). */
  searchLexicalPreloadMb: number;
  /** SQLite's page cache of each connection to the embedded index file (two: the index's and its read worker's), MiB (LARDER_INDEX_PAGE_CACHE_MB, default 64). */
  indexPageCacheMb: number;
  /** The cache of recent query embeddings, MiB (LARDER_SEARCH_QUERY_CACHE_MB, default 8). */
  searchQueryCacheMb: number;
  searchCandidateFactor: number;
  listChunksMaxSortScan: number;
  /** Search admission: searches running at once (LARDER_SEARCH_CONCURRENCY, default 2 per core), waiting at most (LARDER_SEARCH_QUEUE, 256), and the longest wait (LARDER_SEARCH_QUEUE_WAIT_MS, 0: no limit). */
  searchConcurrency: number;
  searchQueue: number;
  searchQueueWaitMs: number;
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
}

/**
 * The fusion's defaults, per embedder, chosen by measurement (bench/quality/;
 * docs/benchmarks.md): on the tuning sets (CISI, GCIDE → WordNet, code, docs) the bundled USE-lite model is
 * much weaker than BM25 and earns a smaller share (0.8 lexical is best on CISI, 0.7 to 0.8 on the others),
 * less where its embedding singles out one chunk (`adaptive`: better than any one weight on every tuning
 * set). Models behind an endpoint or an ONNX directory are not measured here (none can be had offline) and
 * keep an even share, fused `relative`ly (the adaptive shift is in the bundled model's cosines), until one is.
 */
export const DEFAULT_FUSION: {
  method: Record<ModelsConfig['embedder'], FusionMethod>;
  lexicalWeight: Record<ModelsConfig['embedder'], number>;
} = {
  method: { 'use-lite': 'adaptive', openai: 'relative', onnx: 'relative' },
  lexicalWeight: { 'use-lite': 0.8, openai: 0.5, onnx: 0.5 },
};

/**
 * The fusion of `POST /v1/reranking` without a reranking model (`larder-hybrid-rerank`), per embedder,
 * chosen by measurement (bench/reranking-quality.bench.ts; docs/benchmarks.md, reranking):
 * BM25 over the few documents of one request has poorer statistics than over a collection, so the
 * embedding earns a larger share than in a store search. Other embedders are not measured here.
 */
export const DEFAULT_RERANK_FUSION: { method: 'relative'; lexicalWeight: Record<ModelsConfig['embedder'], number> } = {
  method: 'relative',
  lexicalWeight: { 'use-lite': 0.5, openai: 0.5, onnx: 0.5 },
};

/** The fusion's defaults depend on the embedder (DEFAULT_FUSION). */
export function loadSearchConfig(
  env: NodeJS.ProcessEnv,
  { int, decimal, bool }: EnvReaders,
  embedder: ModelsConfig['embedder'],
): SearchConfig {
  const searxngUrl = env.LARDER_SEARXNG_URL || null;
  const braveApiKey = env.LARDER_BRAVE_API_KEY || null;
  const braveUrl = env.LARDER_BRAVE_URL || null;
  const webSearchProviders = webSearchProvidersOf(env, searxngUrl, braveApiKey, braveUrl);
  return {
    ivfMinVectors: Math.max(1000, int('LARDER_IVF_MIN_VECTORS', 20_000)),
    // 0: by the vectors trained on (ivfListsFor); otherwise 16 to 4,096
    ivfLists: int('LARDER_IVF_LISTS', 0) && Math.min(4096, Math.max(16, int('LARDER_IVF_LISTS', 0))),
    ivfPrefetchMinBytes: Math.max(0, int('LARDER_IVF_PREFETCH_MIN_BYTES', 128 * 2 ** 20)),
    ivfProbes: Math.max(1, int('LARDER_IVF_PROBES', 16)),
    indexReadWorker: bool('LARDER_INDEX_READ_WORKER', true),
    searchFusion:
      (['relative', 'rrf', 'adaptive'] as const).find((m) => m === env.LARDER_SEARCH_FUSION) ??
      DEFAULT_FUSION.method[embedder],
    searchLexicalWeight: Math.min(
      1,
      Math.max(0, Number(env.LARDER_SEARCH_LEXICAL_WEIGHT ?? DEFAULT_FUSION.lexicalWeight[embedder]) || 0),
    ),
    searchLexicalFeedback: bool('LARDER_SEARCH_LEXICAL_FEEDBACK', true),
    searchLexicalFeedbackMinWords: env.LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS
      ? int('LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS', 0)
      : null,
    searchBm25K1: decimal('LARDER_SEARCH_BM25_K1', 0, 100),
    searchBm25B: decimal('LARDER_SEARCH_BM25_B', 0, 1),
    searchBm25CodeB: decimal('LARDER_SEARCH_BM25_CODE_B', 0, 1),
    searchBm25MultiChunkB: decimal('LARDER_SEARCH_BM25_MULTI_CHUNK_B', 0, 1),
    searchHeadingWeight: decimal('LARDER_SEARCH_HEADING_WEIGHT', 0, 100),
    searchLexicalCacheMb: Math.max(1, int('LARDER_SEARCH_LEXICAL_CACHE_MB', 256)),
    searchLexicalPreloadMb: Math.max(0, int('LARDER_SEARCH_LEXICAL_PRELOAD_MB', 128)),
    searchExactScanCacheMb: Math.max(0, int('LARDER_SEARCH_EXACT_SCAN_CACHE_MB', 128)),
    indexPageCacheMb: Math.max(1, int('LARDER_INDEX_PAGE_CACHE_MB', 64)),
    searchQueryCacheMb: int('LARDER_SEARCH_QUERY_CACHE_MB', 8),
    rerankLexicalWeight: Math.min(
      1,
      Math.max(0, Number(env.LARDER_RERANK_LEXICAL_WEIGHT ?? DEFAULT_RERANK_FUSION.lexicalWeight[embedder]) || 0),
    ),
    searchCandidateFactor: Math.max(1, int('LARDER_SEARCH_CANDIDATE_FACTOR', 5)),
    listChunksMaxSortScan: Math.max(1000, int('LARDER_LIST_CHUNKS_MAX_SORT_SCAN', 200_000)),
    searchConcurrency: Math.max(1, int('LARDER_SEARCH_CONCURRENCY', 2 * availableParallelism())),
    searchQueue: int('LARDER_SEARCH_QUEUE', 256),
    searchQueueWaitMs: Math.max(0, int('LARDER_SEARCH_QUEUE_WAIT_MS', 0)),
    webSearchProviders,
    searxngUrl,
    braveApiKey,
    braveUrl,
    webSearchTimeoutMs: Math.max(1, int('LARDER_WEB_SEARCH_TIMEOUT_MS', 5000)),
    webSearchMaxResults: Math.min(50, Math.max(1, int('LARDER_WEB_SEARCH_MAX_RESULTS', 20))),
    webSearchMaxBytes: Math.max(1024, int('LARDER_WEB_SEARCH_MAX_BYTES', 2 * 1024 * 1024)),
  };
}

/** LARDER_WEB_SEARCH_PROVIDERS, else every provider whose settings are present; each listed one must be usable. */
function webSearchProvidersOf(
  env: NodeJS.ProcessEnv,
  searxngUrl: string | null,
  braveApiKey: string | null,
  braveUrl: string | null,
): SearchConfig['webSearchProviders'] {
  const WEB_PROVIDERS = ['searxng', 'brave'] as const;
  let webSearchProviders: SearchConfig['webSearchProviders'];
  if (env.LARDER_WEB_SEARCH_PROVIDERS !== undefined && env.LARDER_WEB_SEARCH_PROVIDERS.trim() !== '') {
    // `none` turns the web store off even where a provider's settings are present
    const names = [...new Set(env.LARDER_WEB_SEARCH_PROVIDERS.split(',').map((x) => x.trim().toLowerCase()))].filter(
      (x) => x && x !== 'none',
    );
    const unknown = names.filter((n) => !(WEB_PROVIDERS as readonly string[]).includes(n));
    if (unknown.length)
      throw new Error(
        `LARDER_WEB_SEARCH_PROVIDERS lists unknown providers (${unknown.join(', ')}); known: ${WEB_PROVIDERS.join(', ')} (comma-separated), or none`,
      );
    webSearchProviders = names as SearchConfig['webSearchProviders'];
  } else {
    webSearchProviders = [...(searxngUrl ? ['searxng' as const] : []), ...(braveApiKey ? ['brave' as const] : [])];
  }
  if (webSearchProviders.includes('searxng')) {
    if (!searxngUrl)
      throw new Error(
        'LARDER_WEB_SEARCH_PROVIDERS lists searxng but LARDER_SEARXNG_URL is not set (the base URL of a SearXNG instance with the json format enabled)',
      );
    if (!URL.canParse(searxngUrl) || !/^https?:$/.test(new URL(searxngUrl).protocol))
      throw new Error('LARDER_SEARXNG_URL must be an http(s) URL such as http://127.0.0.1:8888');
    if (new URL(searxngUrl).username || new URL(searxngUrl).password)
      throw new Error('LARDER_SEARXNG_URL must not carry credentials');
  }
  if (webSearchProviders.includes('brave') && !braveApiKey)
    throw new Error(
      'LARDER_WEB_SEARCH_PROVIDERS lists brave but LARDER_BRAVE_API_KEY is not set (a Brave Search API subscription token)',
    );
  if (
    braveUrl !== null &&
    (!URL.canParse(braveUrl) ||
      !/^https?:$/.test(new URL(braveUrl).protocol) ||
      new URL(braveUrl).username ||
      new URL(braveUrl).password)
  ) {
    throw new Error('LARDER_BRAVE_URL must be an http(s) URL without credentials');
  }
  return webSearchProviders;
}

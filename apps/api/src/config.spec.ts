import { loadConfig } from './config';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { HttpReranker } from '@larder/ai/http/http.reranker';
import { OnnxReranker } from '@larder/ai/local/onnx.reranker';
import { writeTinyCrossEncoder } from '@larder/ai/testing/tiny-onnx-model';
import { createLlm, createReranker } from './adapters/models';
import { createWebSearch } from './adapters/web-search';

describe('LLM configuration', () => {
  it('has no LLM without LARDER_LLM_URL', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      llmUrl: null,
      llmApiKey: null,
      llmModel: null,
      llmTimeoutMs: 60_000,
      llmStreamIdleTimeoutMs: 30_000,
      llmMaxRetries: 2,
    });
    expect(createLlm(config)).toBeNull();
  });

  it('reads every LARDER_LLM_* variable and builds the adapter from them', () => {
    const config = loadConfig({
      LARDER_LLM_URL: 'http://127.0.0.1:11434/v1',
      LARDER_LLM_API_KEY: 'sk-config-secret',
      LARDER_LLM_MODEL: 'llama3.1:8b',
      LARDER_LLM_TIMEOUT_MS: '1500',
      LARDER_LLM_STREAM_IDLE_TIMEOUT_MS: '700',
      LARDER_LLM_MAX_RETRIES: '0',
    });
    expect(config).toMatchObject({
      llmUrl: 'http://127.0.0.1:11434/v1',
      llmApiKey: 'sk-config-secret',
      llmModel: 'llama3.1:8b',
      llmTimeoutMs: 1500,
      llmStreamIdleTimeoutMs: 700,
      llmMaxRetries: 0,
    });
    const llm = createLlm(config)!;
    expect(llm.model).toBe('llama3.1:8b');
    expect(llm.endpoint).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(JSON.stringify(llm)).not.toContain('sk-config-secret');
  });

  it('refuses to start with a URL but no model, naming the missing variable', () => {
    expect(() => loadConfig({ LARDER_LLM_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/LARDER_LLM_MODEL/);
  });

  it('refuses a URL that is not http(s) or that carries credentials, without echoing it', () => {
    expect(() => loadConfig({ LARDER_LLM_URL: 'not a url', LARDER_LLM_MODEL: 'm' })).toThrow(
      /LARDER_LLM_URL must be an http\(s\) URL/,
    );
    expect(() => loadConfig({ LARDER_LLM_URL: 'ftp://host/v1', LARDER_LLM_MODEL: 'm' })).toThrow(/LARDER_LLM_URL/);
    let message = '';
    try {
      loadConfig({ LARDER_LLM_URL: 'https://user:hunter2@llm.example/v1', LARDER_LLM_MODEL: 'm' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/LARDER_LLM_API_KEY/);
    expect(message).not.toContain('hunter2');
  });

  it('refuses a malformed number', () => {
    expect(() =>
      loadConfig({ LARDER_LLM_URL: 'http://h/v1', LARDER_LLM_MODEL: 'm', LARDER_LLM_MAX_RETRIES: 'two' }),
    ).toThrow(/LARDER_LLM_MAX_RETRIES/);
  });
});

describe('web search configuration', () => {
  it('has no web search without a provider’s settings', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      webSearchProviders: [],
      webSearchTimeoutMs: 5000,
      webSearchMaxResults: 20,
      webSearchMaxBytes: 2 * 1024 * 1024,
    });
    expect(createWebSearch(config)).toBeNull();
  });

  it('infers the providers from their settings, or takes the list, and never shows the key', () => {
    const both = loadConfig({ LARDER_SEARXNG_URL: 'http://127.0.0.1:8888', LARDER_BRAVE_API_KEY: 'BSA-config-secret' });
    expect(both.webSearchProviders).toEqual(['searxng', 'brave']);
    const web = createWebSearch(both)!;
    expect(web.providers).toEqual(['searxng', 'brave']);
    expect(JSON.stringify(web)).not.toContain('BSA-config-secret');
    expect(
      loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'brave', LARDER_SEARXNG_URL: 'http://h', LARDER_BRAVE_API_KEY: 'k' })
        .webSearchProviders,
    ).toEqual(['brave']);
    expect(
      createWebSearch(loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'none', LARDER_SEARXNG_URL: 'http://h' })),
    ).toBeNull();
  });

  it('stops the start on a listed provider without its setting, an unknown provider or a bad URL', () => {
    expect(() => loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'searxng' })).toThrow(/LARDER_SEARXNG_URL/);
    expect(() => loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'brave' })).toThrow(/LARDER_BRAVE_API_KEY/);
    expect(() => loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'bing' })).toThrow(/unknown providers \(bing\)/);
    expect(() => loadConfig({ LARDER_SEARXNG_URL: 'ftp://h' })).toThrow(/LARDER_SEARXNG_URL/);
    expect(() => loadConfig({ LARDER_SEARXNG_URL: 'http://u:p@h' })).toThrow(/credentials/);
  });
});

describe('reranker configuration', () => {
  it('has no reranker unless one is configured (rerank then changes nothing)', () => {
    const config = loadConfig({});
    expect(config.reranker).toBe('none');
    expect(createReranker(config)).toBeNull();
    expect(createReranker(loadConfig({ LARDER_RERANKER: 'none', LARDER_RERANKER_URL: 'http://h/v1' }))).toBeNull();
  });

  it('reads the LARDER_RERANKER_* variables of an endpoint, infers http from the URL, and never shows the key', () => {
    const config = loadConfig({
      LARDER_RERANKER_URL: 'https://api.cohere.com/v2',
      LARDER_RERANKER_API_KEY: 'co-config-secret',
      LARDER_RERANKER_MODEL: 'rerank-v3.5',
      LARDER_RERANKER_FORMAT: 'cohere',
      LARDER_RERANKER_TIMEOUT_MS: '2500',
      LARDER_RERANKER_MAX_RETRIES: '1',
    });
    expect(config).toMatchObject({
      reranker: 'http',
      rerankerFormat: 'cohere',
      rerankerModel: 'rerank-v3.5',
      rerankerTimeoutMs: 2500,
      rerankerMaxRetries: 1,
      rerankerBatchSize: 100,
    });
    const reranker = createReranker(config) as HttpReranker;
    expect(reranker).toBeInstanceOf(HttpReranker);
    expect(reranker.endpoint).toBe('https://api.cohere.com/v2/rerank');
    expect(JSON.stringify(reranker)).not.toContain('co-config-secret');
    expect(loadConfig({ LARDER_RERANKER_URL: 'http://h/v1', LARDER_RERANKER_MODEL: 'm' }).rerankerFormat).toBe(
      'mixedbread',
    );
  });

  it('stops the start on a missing URL, model or model directory, an unknown format or kind, or a URL with credentials', () => {
    expect(() => loadConfig({ LARDER_RERANKER: 'http' })).toThrow(/LARDER_RERANKER_URL/);
    expect(() => loadConfig({ LARDER_RERANKER_URL: 'http://h/v1' })).toThrow(/LARDER_RERANKER_MODEL/);
    expect(() =>
      loadConfig({ LARDER_RERANKER_URL: 'http://h/v1', LARDER_RERANKER_MODEL: 'm', LARDER_RERANKER_FORMAT: 'voyage' }),
    ).toThrow(/LARDER_RERANKER_FORMAT/);
    expect(() => loadConfig({ LARDER_RERANKER: 'gpu' })).toThrow(/LARDER_RERANKER must be one of/);
    expect(() => loadConfig({ LARDER_RERANKER: 'onnx' })).toThrow(/LARDER_RERANKER_MODEL_DIR/);
    let message = '';
    try {
      loadConfig({ LARDER_RERANKER_URL: 'https://user:hunter2@rerank.example/v1', LARDER_RERANKER_MODEL: 'm' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/credentials/);
    expect(message).not.toContain('hunter2');
  });

  it('builds the ONNX reranker from a model directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'larder-rerank-config-'));
    try {
      writeTinyCrossEncoder(join(root, 'cross'), ['jam']);
      const config = loadConfig({
        LARDER_RERANKER_MODEL_DIR: join(root, 'cross'),
        LARDER_RERANKER_MAX_LENGTH: '128',
        LARDER_RERANKER_DTYPE: 'q8',
      });
      expect(config).toMatchObject({
        reranker: 'onnx',
        rerankerDtype: 'q8',
        rerankerMaxLength: 128,
        rerankerBatchSize: 16,
      });
      const reranker = createReranker(config) as OnnxReranker;
      expect(reranker).toBeInstanceOf(OnnxReranker);
      expect(reranker).toMatchObject({ model: 'onnx:cross', maxLength: 128, batchSize: 16 });
      await reranker.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('search fusion configuration', () => {
  it('gives the bundled model the measured lexical weight and other embedders an even share, unless set', () => {
    expect(loadConfig({})).toMatchObject({
      embedder: 'use-lite',
      searchFusion: 'adaptive',
      searchLexicalWeight: 0.8,
      searchLexicalFeedback: true,
      searchLexicalFeedbackMinWords: null,
    });
    expect(loadConfig({ LARDER_EMBEDDING_URL: 'http://127.0.0.1:9/v1' })).toMatchObject({
      searchFusion: 'relative',
      searchLexicalWeight: 0.5,
    });
    expect(loadConfig({ LARDER_ONNX_MODEL_DIR: '/models/x' })).toMatchObject({
      searchFusion: 'relative',
      searchLexicalWeight: 0.5,
    });
    expect(loadConfig({ LARDER_SEARCH_FUSION: 'relative' }).searchFusion).toBe('relative');
    expect(loadConfig({ LARDER_SEARCH_FUSION: 'adaptive', LARDER_ONNX_MODEL_DIR: '/m' }).searchFusion).toBe('adaptive');
    expect(loadConfig({ LARDER_SEARCH_FUSION: 'bogus' }).searchFusion).toBe('adaptive');
    expect(
      loadConfig({
        LARDER_SEARCH_LEXICAL_WEIGHT: '0.3',
        LARDER_SEARCH_FUSION: 'rrf',
        LARDER_SEARCH_LEXICAL_FEEDBACK: 'false',
      }),
    ).toMatchObject({
      searchFusion: 'rrf',
      searchLexicalWeight: 0.3,
      searchLexicalFeedback: false,
    });
    expect(loadConfig({ LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS: '0' }).searchLexicalFeedbackMinWords).toBe(0);
    expect(loadConfig({ LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS: '20' }).searchLexicalFeedbackMinWords).toBe(20);
    expect(() => loadConfig({ LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS: 'many' })).toThrow(
      /LARDER_SEARCH_LEXICAL_FEEDBACK_MIN_WORDS/,
    );
  });

  it('reads BM25 k1, b and the heading weight, refusing values out of range', () => {
    expect(loadConfig({})).toMatchObject({
      searchBm25K1: null,
      searchBm25B: null,
      searchBm25CodeB: null,
      searchBm25MultiChunkB: null,
      searchHeadingWeight: null,
    });
    expect(loadConfig({ LARDER_SEARCH_BM25_CODE_B: '0.9' })).toMatchObject({ searchBm25CodeB: 0.9 });
    expect(loadConfig({ LARDER_SEARCH_BM25_MULTI_CHUNK_B: '0.6' })).toMatchObject({ searchBm25MultiChunkB: 0.6 });
    expect(
      loadConfig({ LARDER_SEARCH_BM25_K1: '1.5', LARDER_SEARCH_BM25_B: '0.4', LARDER_SEARCH_HEADING_WEIGHT: '2' }),
    ).toMatchObject({ searchBm25K1: 1.5, searchBm25B: 0.4, searchHeadingWeight: 2 });
    expect(() => loadConfig({ LARDER_SEARCH_BM25_B: '1.5' })).toThrow(
      /LARDER_SEARCH_BM25_B must be a number from 0 to 1/,
    );
    expect(() => loadConfig({ LARDER_SEARCH_BM25_K1: 'fast' })).toThrow(/LARDER_SEARCH_BM25_K1/);
  });

  it('reads the lexical block cache size in MiB (default 256)', () => {
    expect(loadConfig({}).searchLexicalCacheMb).toBe(256);
    expect(loadConfig({ LARDER_SEARCH_LEXICAL_CACHE_MB: '64' }).searchLexicalCacheMb).toBe(64);
    expect(() => loadConfig({ LARDER_SEARCH_LEXICAL_CACHE_MB: 'lots' })).toThrow(/LARDER_SEARCH_LEXICAL_CACHE_MB/);
  });

  it("reads the exact scans' cache in MiB (default 128, 0: none kept)", () => {
    expect(loadConfig({}).searchExactScanCacheMb).toBe(128);
    expect(loadConfig({ LARDER_SEARCH_EXACT_SCAN_CACHE_MB: '0' }).searchExactScanCacheMb).toBe(0);
    expect(() => loadConfig({ LARDER_SEARCH_EXACT_SCAN_CACHE_MB: 'lots' })).toThrow(
      /LARDER_SEARCH_EXACT_SCAN_CACHE_MB/,
    );
  });

  it('reads the lexical preload in MiB (default 128, 0: none)', () => {
    expect(loadConfig({}).searchLexicalPreloadMb).toBe(128);
    expect(loadConfig({ LARDER_SEARCH_LEXICAL_PRELOAD_MB: '0' }).searchLexicalPreloadMb).toBe(0);
    expect(() => loadConfig({ LARDER_SEARCH_LEXICAL_PRELOAD_MB: '-1' })).toThrow(/LARDER_SEARCH_LEXICAL_PRELOAD_MB/);
  });

  it('reads the memory bounds in MiB: the index page caches (64), the query cache (8, 0: none), the shared buffers (32)', () => {
    expect(loadConfig({})).toMatchObject({ indexPageCacheMb: 64, searchQueryCacheMb: 8, pgSharedBuffersMb: 32 });
    expect(
      loadConfig({
        LARDER_INDEX_PAGE_CACHE_MB: '16',
        LARDER_SEARCH_QUERY_CACHE_MB: '0',
        LARDER_PG_SHARED_BUFFERS_MB: '128',
      }),
    ).toMatchObject({ indexPageCacheMb: 16, searchQueryCacheMb: 0, pgSharedBuffersMb: 128 });
    // at least 1 MiB of page cache and of shared buffers
    expect(loadConfig({ LARDER_INDEX_PAGE_CACHE_MB: '0', LARDER_PG_SHARED_BUFFERS_MB: '0' })).toMatchObject({
      indexPageCacheMb: 1,
      pgSharedBuffersMb: 1,
    });
    for (const name of ['LARDER_INDEX_PAGE_CACHE_MB', 'LARDER_SEARCH_QUERY_CACHE_MB', 'LARDER_PG_SHARED_BUFFERS_MB'])
      expect(() => loadConfig({ [name]: 'lots' })).toThrow(new RegExp(name));
  });
});

describe('IVF configuration', () => {
  it('chooses the IVF lists by the vectors unless LARDER_IVF_LISTS gives them (16 to 4,096)', () => {
    expect(loadConfig({}).ivfLists).toBe(0);
    expect(loadConfig({ LARDER_IVF_LISTS: '0' }).ivfLists).toBe(0);
    expect(loadConfig({ LARDER_IVF_LISTS: '512' }).ivfLists).toBe(512);
    expect(loadConfig({ LARDER_IVF_LISTS: '8' }).ivfLists).toBe(16);
    expect(loadConfig({ LARDER_IVF_LISTS: '9000' }).ivfLists).toBe(4096);
    expect(() => loadConfig({ LARDER_IVF_LISTS: '-1' })).toThrow(/LARDER_IVF_LISTS/);
  });
});

describe('bundled model runtime', () => {
  it('runs the bundled model with onnxruntime unless LARDER_USE_LITE_RUNTIME says tfjs, and names a bad value', () => {
    expect(loadConfig({}).useLiteRuntime).toBe('onnx');
    expect(loadConfig({ LARDER_USE_LITE_RUNTIME: 'tfjs' }).useLiteRuntime).toBe('tfjs');
    expect(() => loadConfig({ LARDER_USE_LITE_RUNTIME: 'gpu' })).toThrow(
      'LARDER_USE_LITE_RUNTIME must be onnx (default) or tfjs',
    );
  });
});

describe('model aliases', () => {
  it('reads LARDER_MODEL_ALIASES as comma-separated alias=model pairs (names may hold slashes and colons)', () => {
    expect(loadConfig({}).modelAliases).toEqual({});
    expect(
      loadConfig({
        LARDER_MODEL_ALIASES:
          ' mixedbread-ai/mxbai-embed-large-v1 = universal-sentence-encoder-lite , text-embedding-3-small=onnx:bge ',
      }).modelAliases,
    ).toEqual({
      'mixedbread-ai/mxbai-embed-large-v1': 'universal-sentence-encoder-lite',
      'text-embedding-3-small': 'onnx:bge',
    });
    expect(() => loadConfig({ LARDER_MODEL_ALIASES: 'just-a-name' })).toThrow(/not alias=model/);
    expect(() => loadConfig({ LARDER_MODEL_ALIASES: 'a=x,a=y' })).toThrow(/maps a twice/);
  });
});

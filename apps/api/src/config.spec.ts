import { loadConfig } from './config';
import { createLlm, createWebSearch } from './infrastructure';

describe('LLM configuration', () => {
  it('has no LLM without LARDER_LLM_URL', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ llmUrl: null, llmApiKey: null, llmModel: null, llmTimeoutMs: 60_000, llmStreamIdleTimeoutMs: 30_000, llmMaxRetries: 2 });
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
    expect(() => loadConfig({ LARDER_LLM_URL: 'not a url', LARDER_LLM_MODEL: 'm' })).toThrow(/LARDER_LLM_URL must be an http\(s\) URL/);
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
    expect(() => loadConfig({ LARDER_LLM_URL: 'http://h/v1', LARDER_LLM_MODEL: 'm', LARDER_LLM_MAX_RETRIES: 'two' })).toThrow(/LARDER_LLM_MAX_RETRIES/);
  });
});

describe('web search configuration', () => {
  it('has no web search without a provider’s settings', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ webSearchProviders: [], webSearchTimeoutMs: 5000, webSearchMaxResults: 20, webSearchMaxBytes: 2 * 1024 * 1024 });
    expect(createWebSearch(config)).toBeNull();
  });

  it('infers the providers from their settings, or takes the list, and never shows the key', () => {
    const both = loadConfig({ LARDER_SEARXNG_URL: 'http://127.0.0.1:8888', LARDER_BRAVE_API_KEY: 'BSA-config-secret' });
    expect(both.webSearchProviders).toEqual(['searxng', 'brave']);
    const web = createWebSearch(both)!;
    expect(web.providers).toEqual(['searxng', 'brave']);
    expect(JSON.stringify(web)).not.toContain('BSA-config-secret');
    expect(loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'brave', LARDER_SEARXNG_URL: 'http://h', LARDER_BRAVE_API_KEY: 'k' }).webSearchProviders).toEqual(['brave']);
    expect(createWebSearch(loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'none', LARDER_SEARXNG_URL: 'http://h' }))).toBeNull();
  });

  it('stops the start on a listed provider without its setting, an unknown provider or a bad URL', () => {
    expect(() => loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'searxng' })).toThrow(/LARDER_SEARXNG_URL/);
    expect(() => loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'brave' })).toThrow(/LARDER_BRAVE_API_KEY/);
    expect(() => loadConfig({ LARDER_WEB_SEARCH_PROVIDERS: 'bing' })).toThrow(/unknown providers \(bing\)/);
    expect(() => loadConfig({ LARDER_SEARXNG_URL: 'ftp://h' })).toThrow(/LARDER_SEARXNG_URL/);
    expect(() => loadConfig({ LARDER_SEARXNG_URL: 'http://u:p@h' })).toThrow(/credentials/);
  });
});

describe('search fusion configuration', () => {
  it('gives the bundled model the measured lexical weight and other embedders an even share, unless set', () => {
    expect(loadConfig({})).toMatchObject({ embedder: 'use-lite', searchFusion: 'relative', searchLexicalWeight: 0.7, searchLexicalFeedback: false });
    expect(loadConfig({ LARDER_EMBEDDING_URL: 'http://127.0.0.1:9/v1' }).searchLexicalWeight).toBe(0.5);
    expect(loadConfig({ LARDER_ONNX_MODEL_DIR: '/models/x' }).searchLexicalWeight).toBe(0.5);
    expect(loadConfig({ LARDER_SEARCH_LEXICAL_WEIGHT: '0.3', LARDER_SEARCH_FUSION: 'rrf', LARDER_SEARCH_LEXICAL_FEEDBACK: 'true' })).toMatchObject({
      searchFusion: 'rrf',
      searchLexicalWeight: 0.3,
      searchLexicalFeedback: true,
    });
  });
});

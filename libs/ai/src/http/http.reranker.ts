import type * as http from 'http';
import { JsonAnswer, RetryPolicy, keepAliveAgent, postJson } from '@larder/outbound';
import { Reranker, RerankError, sigmoid } from '../reranker.port';

/** The wire formats of the hosted rerank endpoints (and of servers that copy them: TEI, Infinity, vLLM, LocalAI speak cohere/jina). */
export type RerankWireFormat = 'mixedbread' | 'cohere' | 'jina';

export interface HttpRerankerOptions {
  /**
   * The endpoint, or its base up to the version: `https://api.mixedbread.com/v1` (→ `/v1/reranking`),
   * `https://api.cohere.com/v2` (→ `/v2/rerank`), `https://api.jina.ai/v1` (→ `/v1/rerank`). A URL that
   * already ends in `/rerank` or `/reranking` is used as it is.
   */
  url: string;
  apiKey: string | null;
  model: string;
  format: RerankWireFormat;
  /** Documents per request. */
  batchSize?: number;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries of 408/429/5xx and network failures. */
  maxRetries?: number;
  /** Largest answer read. */
  maxBytes?: number;
  /** Base of the back-off between attempts (doubled each time, jittered, at most 10 s; a Retry-After is honoured up to 10 s). */
  retryBaseMs?: number;
}

const DEFAULT_PATH: Record<RerankWireFormat, string> = { mixedbread: '/reranking', cohere: '/rerank', jina: '/rerank' };

/**
 * A hosted (or self-hosted) reranking endpoint, in the Mixedbread, Cohere or Jina wire format:
 * - mixedbread `POST /v1/reranking` `{model, query, input, top_k, return_input}` → `{data: [{index, score}]}`
 * - cohere `POST /v1/rerank` or `/v2/rerank` `{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`
 * - jina `POST /v1/rerank` `{model, query, documents, top_n, return_documents}` → `{results: [{index, relevance_score}]}`
 *
 * Scores are mapped back to the documents by index (a missing or repeated index is an error). Scores
 * already in [0, 1] are kept; an answer with raw logits (some self-hosted servers) is mapped through
 * the sigmoid, which keeps its order. The key goes in the Authorization header and nowhere else: it
 * is never part of an error message.
 */
export class HttpReranker implements Reranker {
  readonly model: string;
  readonly endpoint: string;
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly maxBytes: number;
  private readonly format: RerankWireFormat;
  /** Kept out of the object's enumerable fields (logs, JSON). */
  readonly #apiKey: string | null;

  constructor(options: HttpRerankerOptions) {
    this.#apiKey = options.apiKey || null;
    this.format = options.format;
    const base = options.url.replace(/\/+$/, '');
    this.url = new URL(
      /\/(rerank|reranking)$/.test(new URL(base).pathname) ? base : base + DEFAULT_PATH[options.format],
    );
    this.endpoint = `${this.url.origin}${this.url.pathname}`; // never the query, which may carry a secret
    this.agent = keepAliveAgent(this.url);
    this.model = options.model;
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.timeoutMs = Math.max(1, options.timeoutMs ?? 10_000);
    this.retry = new RetryPolicy({
      maxRetries: options.maxRetries ?? 2,
      baseMs: options.retryBaseMs ?? 250,
      maxDelayMs: 10_000,
    });
    this.maxBytes = Math.max(1024, options.maxBytes ?? 4 * 1024 * 1024);
  }

  async score(query: string, documents: string[]): Promise<number[]> {
    const raw: number[] = [];
    for (let i = 0; i < documents.length; i += this.batchSize)
      raw.push(...(await this.scoreBatch(query, documents.slice(i, i + this.batchSize))));
    // relevance probabilities are kept; raw logits (any score outside [0, 1]) all go through the sigmoid, which keeps their order
    return raw.every((s) => s >= 0 && s <= 1) ? raw : raw.map(sigmoid);
  }

  private requestBody(query: string, documents: string[]): unknown {
    const model = this.model;
    switch (this.format) {
      case 'mixedbread':
        return { model, query, input: documents, top_k: documents.length, return_input: false };
      case 'cohere':
        return { model, query, documents, top_n: documents.length };
      case 'jina':
        return { model, query, documents, top_n: documents.length, return_documents: false };
    }
  }

  /** Hides the key should an endpoint echo it back, and keeps an excerpt short. */
  private excerpt(text: string): string {
    const key = this.#apiKey;
    const cut = text.slice(0, 300);
    return key ? cut.split(key).join('***') : cut;
  }

  private async scoreBatch(query: string, documents: string[]): Promise<number[]> {
    const body = JSON.stringify(
      this.requestBody(
        query || ' ',
        documents.map((d) => d || ' '),
      ),
    );
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}),
    };
    return this.retry.run<number[]>(async () => {
      let res: JsonAnswer;
      try {
        res = await postJson(this.url, headers, body, this.agent, this.timeoutMs, this.maxBytes);
      } catch (err) {
        return {
          retry: new RerankError(
            `rerank endpoint ${this.endpoint} unreachable: ${this.excerpt((err as Error).message)}`,
            true,
          ),
        };
      }
      if (res.status >= 200 && res.status < 300) return { value: this.parse(res.body, documents.length) };
      const retryable = this.retry.retries(res.status);
      const error = new RerankError(
        `rerank endpoint ${this.endpoint} answered ${res.status}: ${this.excerpt(res.body)}`,
        retryable,
      );
      if (!retryable) throw error;
      return { retry: error, retryAfterMs: res.retryAfterMs };
    });
  }

  private parse(text: string, count: number): number[] {
    let parsed: { data?: unknown; results?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new RerankError(`rerank endpoint ${this.endpoint} returned invalid JSON`, true);
    }
    const mixedbread = this.format === 'mixedbread';
    const items = mixedbread ? parsed?.data : parsed?.results;
    if (!Array.isArray(items))
      throw new RerankError(
        `rerank endpoint ${this.endpoint} returned no ${mixedbread ? 'data' : 'results'} list (is LARDER_RERANKER_FORMAT=${this.format} right?)`,
        false,
      );
    const scores = new Array<number | undefined>(count).fill(undefined);
    for (const item of items as Array<Record<string, unknown>>) {
      const index = item?.index;
      const score = mixedbread ? item?.score : (item?.relevance_score ?? item?.score);
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count)
        throw new RerankError(
          `rerank endpoint ${this.endpoint} returned an index outside the ${count} documents`,
          false,
        );
      if (typeof score !== 'number' || !Number.isFinite(score))
        throw new RerankError(`rerank endpoint ${this.endpoint} returned a result without a numeric score`, false);
      if (scores[index] !== undefined)
        throw new RerankError(`rerank endpoint ${this.endpoint} returned index ${index} twice`, false);
      scores[index] = score;
    }
    const missing = scores.findIndex((s) => s === undefined);
    if (missing >= 0)
      throw new RerankError(
        `rerank endpoint ${this.endpoint} returned no score for document ${missing} of ${count}`,
        false,
      );
    return scores as number[];
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

import * as http from 'http';
import * as https from 'https';
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
  /** Base of the backoff between attempts (doubled each time; a Retry-After of at most 10 s is honoured). */
  retryBaseMs?: number;
}

interface Answer {
  status: number;
  body: string;
  retryAfterMs: number | null;
}

/** POSTs JSON over a kept-alive connection; the answer is read up to `maxBytes`, the whole attempt up to `timeoutMs`. */
function postJson(url: URL, headers: Record<string, string>, body: string, agent: http.Agent, timeoutMs: number, maxBytes: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      res.on('data', (d: Buffer) => {
        size += d.length;
        if (tooLarge) return;
        if (size <= maxBytes) return parts.push(d);
        tooLarge = true;
        reject(new Error(`answer larger than ${maxBytes} bytes`));
        req.destroy();
      });
      res.on('end', () => {
        if (tooLarge) return;
        const after = Number(res.headers['retry-after']);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8'), retryAfterMs: Number.isFinite(after) && after >= 0 ? after * 1000 : null });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(body);
  });
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
  private readonly maxRetries: number;
  private readonly maxBytes: number;
  private readonly retryBaseMs: number;
  private readonly format: RerankWireFormat;
  /** Kept out of the object's enumerable fields (logs, JSON). */
  readonly #apiKey: string | null;

  constructor(options: HttpRerankerOptions) {
    this.#apiKey = options.apiKey || null;
    this.format = options.format;
    const base = options.url.replace(/\/+$/, '');
    this.url = new URL(/\/(rerank|reranking)$/.test(new URL(base).pathname) ? base : base + DEFAULT_PATH[options.format]);
    this.endpoint = `${this.url.origin}${this.url.pathname}`; // never the query, which may carry a secret
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.model = options.model;
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.timeoutMs = Math.max(1, options.timeoutMs ?? 10_000);
    this.maxRetries = Math.max(0, options.maxRetries ?? 2);
    this.maxBytes = Math.max(1024, options.maxBytes ?? 4 * 1024 * 1024);
    this.retryBaseMs = Math.max(0, options.retryBaseMs ?? 250);
  }

  async score(query: string, documents: string[]): Promise<number[]> {
    const raw: number[] = [];
    for (let i = 0; i < documents.length; i += this.batchSize) raw.push(...(await this.scoreBatch(query, documents.slice(i, i + this.batchSize))));
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
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}) };
    for (let attempt = 0; ; attempt++) {
      let res: Answer;
      try {
        res = await postJson(this.url, headers, body, this.agent, this.timeoutMs, this.maxBytes);
      } catch (err) {
        const e = new RerankError(`rerank endpoint ${this.endpoint} unreachable: ${this.excerpt((err as Error).message)}`, true);
        if (attempt < this.maxRetries) {
          await this.backoff(attempt, null);
          continue;
        }
        throw e;
      }
      if (res.status >= 200 && res.status < 300) return this.parse(res.body, documents.length);
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      if (retryable && attempt < this.maxRetries) {
        await this.backoff(attempt, res.retryAfterMs);
        continue;
      }
      throw new RerankError(`rerank endpoint ${this.endpoint} answered ${res.status}: ${this.excerpt(res.body)}`, retryable);
    }
  }

  private backoff(attempt: number, retryAfterMs: number | null): Promise<void> {
    const ms = retryAfterMs !== null && retryAfterMs <= 10_000 ? retryAfterMs : this.retryBaseMs * 2 ** attempt;
    return new Promise((r) => setTimeout(r, ms));
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
    if (!Array.isArray(items)) throw new RerankError(`rerank endpoint ${this.endpoint} returned no ${mixedbread ? 'data' : 'results'} list (is LARDER_RERANKER_FORMAT=${this.format} right?)`, false);
    const scores = new Array<number | undefined>(count).fill(undefined);
    for (const item of items as Array<Record<string, unknown>>) {
      const index = item?.index;
      const score = mixedbread ? item?.score : (item?.relevance_score ?? item?.score);
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count)
        throw new RerankError(`rerank endpoint ${this.endpoint} returned an index outside the ${count} documents`, false);
      if (typeof score !== 'number' || !Number.isFinite(score)) throw new RerankError(`rerank endpoint ${this.endpoint} returned a result without a numeric score`, false);
      if (scores[index] !== undefined) throw new RerankError(`rerank endpoint ${this.endpoint} returned index ${index} twice`, false);
      scores[index] = score;
    }
    const missing = scores.findIndex((s) => s === undefined);
    if (missing >= 0) throw new RerankError(`rerank endpoint ${this.endpoint} returned no score for document ${missing} of ${count}`, false);
    return scores as number[];
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

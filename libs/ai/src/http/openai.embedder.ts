import type * as http from 'http';
import { JsonAnswer, isRetryableStatus, keepAliveAgent, postJson } from '@larder/outbound';
import { Embedder, EmbeddingError } from '../embedder.port';

export interface OpenAiEmbedderOptions {
  /** Base URL up to (not including) `/embeddings`, e.g. `https://api.openai.com/v1` or `https://api.mixedbread.com/v1`. */
  baseUrl: string;
  apiKey: string | null;
  model: string;
  dimensions: number;
  batchSize?: number;
  timeoutMs?: number;
  /** Sent as `dimensions` when the endpoint supports shortening (Matryoshka models). */
  requestDimensions?: boolean;
  /** Prefixes some models expect (e.g. mxbai's query prompt). */
  queryPrefix?: string;
}

/**
 * Any OpenAI-compatible `POST /embeddings` endpoint (OpenAI, Mixedbread, vLLM, Ollama, TEI…). A failed
 * call is not retried here: its error says whether it is `retryable`, and the caller decides.
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;

  private readonly url: URL;
  private readonly agent: http.Agent;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/embeddings`);
    this.agent = keepAliveAgent(this.url);
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.batchSize = options.batchSize ?? 64;
  }

  async embed(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const input = texts
        .slice(i, i + this.batchSize)
        .map((t) => (kind === 'query' && this.options.queryPrefix ? this.options.queryPrefix + t : t) || ' ');
      out.push(...(await this.request(input)));
    }
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const url = this.url.toString();
    let res: JsonAnswer;
    try {
      res = await postJson(
        this.url,
        {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        JSON.stringify({
          model: this.model,
          input,
          encoding_format: 'float',
          ...(this.options.requestDimensions ? { dimensions: this.dimensions } : {}),
        }),
        this.agent,
        this.options.timeoutMs ?? 60_000,
      );
    } catch (err) {
      throw new EmbeddingError(`embedding endpoint ${url} unreachable: ${(err as Error).message}`, true);
    }
    const body = res.body;
    if (res.status < 200 || res.status >= 300) {
      throw new EmbeddingError(
        `embedding endpoint answered ${res.status}: ${body.slice(0, 300)}`,
        isRetryableStatus(res.status),
      );
    }
    let parsed: { data?: Array<{ embedding: number[] | string; index: number }> };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw new EmbeddingError(`embedding endpoint returned invalid JSON`, true);
    }
    const data = parsed.data;
    if (!Array.isArray(data) || data.length !== input.length)
      throw new EmbeddingError(
        `embedding endpoint returned ${data?.length ?? 0} vectors for ${input.length} inputs`,
        false,
      );
    const vectors = new Array<Float32Array>(input.length);
    for (const d of data) {
      const v =
        typeof d.embedding === 'string'
          ? new Float32Array(Buffer.from(d.embedding, 'base64').buffer.slice(0))
          : Float32Array.from(d.embedding);
      if (v.length !== this.dimensions)
        throw new EmbeddingError(
          `embedding endpoint returned ${v.length} dimensions; LARDER_EMBEDDING_DIMENSIONS is ${this.dimensions}`,
          false,
        );
      vectors[d.index] = v;
    }
    if (vectors.some((v) => !v))
      throw new EmbeddingError('embedding endpoint returned duplicate or missing indices', false);
    return vectors;
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

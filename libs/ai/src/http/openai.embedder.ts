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

/** Any OpenAI-compatible `POST /embeddings` endpoint (OpenAI, Mixedbread, vLLM, Ollama, TEI…). */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.batchSize = options.batchSize ?? 64;
  }

  async embed(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const input = texts.slice(i, i + this.batchSize).map((t) => (kind === 'query' && this.options.queryPrefix ? this.options.queryPrefix + t : t) || ' ');
      out.push(...(await this.request(input)));
    }
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.model, input, encoding_format: 'float', ...(this.options.requestDimensions ? { dimensions: this.dimensions } : {}) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
      });
    } catch (err) {
      throw new EmbeddingError(`embedding endpoint ${url} unreachable: ${(err as Error).message}`, true);
    }
    const body = await res.text();
    if (!res.ok) {
      throw new EmbeddingError(`embedding endpoint answered ${res.status}: ${body.slice(0, 300)}`, res.status === 429 || res.status >= 500 || res.status === 408);
    }
    let parsed: { data?: Array<{ embedding: number[] | string; index: number }> };
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new EmbeddingError(`embedding endpoint returned invalid JSON`, true);
    }
    const data = parsed.data;
    if (!Array.isArray(data) || data.length !== input.length) throw new EmbeddingError(`embedding endpoint returned ${data?.length ?? 0} vectors for ${input.length} inputs`, false);
    const vectors: Float32Array[] = new Array(input.length);
    for (const d of data) {
      const v = typeof d.embedding === 'string' ? new Float32Array(Buffer.from(d.embedding, 'base64').buffer.slice(0)) : Float32Array.from(d.embedding);
      if (v.length !== this.dimensions) throw new EmbeddingError(`embedding endpoint returned ${v.length} dimensions; LARDER_EMBEDDING_DIMENSIONS is ${this.dimensions}`, false);
      vectors[d.index] = v;
    }
    if (vectors.some((v) => !v)) throw new EmbeddingError('embedding endpoint returned duplicate or missing indices', false);
    return vectors;
  }

  async close(): Promise<void> {
    /* stateless */
  }
}

import * as http from 'http';
import * as https from 'https';
import { Embedder, EmbeddingError } from '../embedder.port';

/** POSTs JSON over a kept-alive connection (node:http: a query's embedding is on search's critical path). */
function postJson(url: URL, headers: Record<string, string>, body: string, agent: http.Agent, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

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

  private readonly url: URL;
  private readonly agent: http.Agent;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/embeddings`);
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
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
    const url = this.url.toString();
    let res: { status: number; body: string };
    try {
      res = await postJson(
        this.url,
        { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        JSON.stringify({ model: this.model, input, encoding_format: 'float', ...(this.options.requestDimensions ? { dimensions: this.dimensions } : {}) }),
        this.agent,
        this.options.timeoutMs ?? 60_000,
      );
    } catch (err) {
      throw new EmbeddingError(`embedding endpoint ${url} unreachable: ${(err as Error).message}`, true);
    }
    const body = res.body;
    if (res.status < 200 || res.status >= 300) {
      throw new EmbeddingError(`embedding endpoint answered ${res.status}: ${body.slice(0, 300)}`, res.status === 429 || res.status >= 500 || res.status === 408);
    }
    let parsed: { data?: Array<{ embedding: number[] | string; index: number }> };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw new EmbeddingError(`embedding endpoint returned invalid JSON`, true);
    }
    const data = parsed.data;
    if (!Array.isArray(data) || data.length !== input.length) throw new EmbeddingError(`embedding endpoint returned ${data?.length ?? 0} vectors for ${input.length} inputs`, false);
    const vectors = new Array<Float32Array>(input.length);
    for (const d of data) {
      const v = typeof d.embedding === 'string' ? new Float32Array(Buffer.from(d.embedding, 'base64').buffer.slice(0)) : Float32Array.from(d.embedding);
      if (v.length !== this.dimensions) throw new EmbeddingError(`embedding endpoint returned ${v.length} dimensions; LARDER_EMBEDDING_DIMENSIONS is ${this.dimensions}`, false);
      vectors[d.index] = v;
    }
    if (vectors.some((v) => !v)) throw new EmbeddingError('embedding endpoint returned duplicate or missing indices', false);
    return vectors;
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

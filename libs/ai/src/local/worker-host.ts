import { Worker } from 'worker_threads';
import { moduleWorker } from '@larder/kernel/worker-module';
import { EmbeddingError } from '../embedder.port';

/**
 * Runs a local model in a worker thread: its JavaScript (tokenizers, TensorFlow.js) runs on the CPU
 * synchronously, so the event loop (HTTP, projections) stays responsive while it embeds. The worker
 * code answers `{id, texts, kind, ...extra}` with `{id, flat}` (the vectors concatenated) or `{id, error}`.
 * The thread starts on first use and does not keep the process alive while idle.
 */
export class EmbeddingWorkerHost {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly file: string,
    private readonly dimensions: number,
    private readonly workerData: unknown = null,
  ) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = moduleWorker(this.file, { workerData: this.workerData });
    w.unref();
    w.on('message', (m: { id: number; flat?: Float32Array; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error || !m.flat) return p.reject(new EmbeddingError(`local embedding failed: ${m.error}`, false));
      if (m.flat.length % this.dimensions)
        return p.reject(
          new EmbeddingError(`local model returned vectors of another dimension than ${this.dimensions}`, false),
        );
      const out: Float32Array[] = [];
      for (let i = 0; i < m.flat.length / this.dimensions; i++)
        out.push(m.flat.slice(i * this.dimensions, (i + 1) * this.dimensions));
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

  async run(texts: string[], kind: 'document' | 'query', extra: Record<string, unknown> = {}): Promise<Float32Array[]> {
    const w = this.start();
    const id = this.nextId++;
    const result = new Promise<Float32Array[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    w.ref();
    w.postMessage({ ...extra, id, texts, kind });
    try {
      return await result;
    } finally {
      if (!this.pending.size) w.unref();
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/**
 * The same thread discipline for any request/answer model call: the worker module answers `{id, ...request}`
 * with `{id, result}` or `{id, error}`. Starts on first use; does not keep the process alive while idle.
 */
export class ModelWorkerHost<Req extends object, Res> {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: Res) => void; reject: (e: Error) => void }>();

  /**
   * `workerData`: what the thread is given, or a function that makes it for each start (large data, a
   * model's bytes, is then not kept here between starts: the thread has its own copy).
   */
  constructor(
    private readonly file: string,
    private readonly workerData: unknown,
    private readonly fail: (message: string, retryable: boolean) => Error,
  ) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const data: unknown =
      typeof this.workerData === 'function' ? (this.workerData as () => unknown)() : this.workerData;
    const w = moduleWorker(this.file, { workerData: data });
    w.unref();
    w.on('message', (m: { id: number; result?: Res; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined || m.result === undefined) p.reject(this.fail(m.error ?? 'no result', false));
      else p.resolve(m.result);
    });
    w.on('error', (err) => this.failAll(err));
    w.on('exit', () => {
      this.worker = null;
      this.failAll(new Error('model worker exited'));
    });
    this.worker = w;
    return w;
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(this.fail(err.message, true));
    this.pending.clear();
  }

  /** Requests sent and not answered yet. */
  get waiting(): number {
    return this.pending.size;
  }

  async run(request: Req): Promise<Res> {
    const w = this.start();
    const id = this.nextId++;
    const result = new Promise<Res>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    w.ref();
    w.postMessage({ ...request, id });
    try {
      return await result;
    } finally {
      if (!this.pending.size) w.unref();
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

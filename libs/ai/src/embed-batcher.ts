import { Embedder } from './embedder.port';

/** One caller's texts, answered once every one of them has its vector. */
interface Job {
  out: Float32Array[];
  left: number;
  failed: boolean;
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: Error) => void;
}

interface Item {
  job: Job;
  index: number;
  text: string;
  /** After a failed mixed batch: sent only with texts of its own job, so one caller's bad input fails no other. */
  alone: boolean;
}

/** A batch the model ran: how many texts, and how long it took. */
export interface EmbedBatchTiming {
  texts: number;
  seconds: number;
}

/**
 * Coalesces concurrent document embeddings (the ingestion embeds one call per file, often a few chunks)
 * into batches of the adapter's `batchSize`, and keeps `lanes` batches running (the adapter's worker
 * pool): the model is never idle while texts wait, and never sees more batches at once than it has
 * workers for. A batch is sent as soon as a lane is free, so a lone file waits for nothing; while the
 * lanes are busy, texts of other files gather into the next batch. When a batch that mixed several
 * callers' texts fails, each caller's texts are tried again on their own, so the error lands on the
 * caller whose input caused it.
 */
export class EmbedBatcher {
  private readonly queue: Item[] = [];
  private running = 0;
  private readonly listeners: Array<(t: EmbedBatchTiming) => void> = [];

  constructor(
    private readonly embedder: Pick<Embedder, 'embed' | 'batchSize'>,
    readonly lanes: number,
  ) {}

  /** Texts waiting for a lane. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Batches the model is running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Called after every batch the model answered (metrics). */
  onBatch(listener: (t: EmbedBatchTiming) => void): void {
    this.listeners.push(listener);
  }

  /** The vectors of `texts`, in order, embedded as documents. */
  embed(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return Promise.resolve([]);
    return new Promise<Float32Array[]>((resolve, reject) => {
      const job: Job = {
        out: new Array<Float32Array>(texts.length),
        left: texts.length,
        failed: false,
        resolve,
        reject,
      };
      texts.forEach((text, index) => this.queue.push({ job, index, text, alone: false }));
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < Math.max(1, this.lanes) && this.queue.length) {
      const batch = this.take();
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The next batch: the queue's head, then as many texts as fit (only the head's own job when it is to go alone). */
  private take(): Item[] {
    const size = Math.max(1, this.embedder.batchSize);
    const head = this.queue[0];
    if (!head.alone) {
      let n = 0;
      while (n < this.queue.length && n < size && !this.queue[n].alone) n++;
      return this.queue.splice(0, n);
    }
    const batch: Item[] = [];
    for (let i = 0; i < this.queue.length && batch.length < size;)
      if (this.queue[i].job === head.job) batch.push(...this.queue.splice(i, 1));
      else i++;
    return batch;
  }

  private async run(batch: Item[]): Promise<void> {
    const live = batch.filter((it) => !it.job.failed);
    if (!live.length) return;
    const t0 = performance.now();
    let vectors: Float32Array[];
    try {
      vectors = await this.embedder.embed(
        live.map((it) => it.text),
        'document',
      );
      if (vectors.length !== live.length)
        throw new Error(`the embedder answered ${vectors.length} vectors for ${live.length} texts`);
    } catch (err) {
      const jobs = new Set(live.map((it) => it.job));
      if (jobs.size > 1) {
        // someone's input failed a shared batch: everyone's texts go again, each caller's on their own
        this.queue.unshift(...live.map((it) => ({ ...it, alone: true })));
        return;
      }
      for (const job of jobs) this.fail(job, err as Error);
      return;
    }
    const timing = { texts: live.length, seconds: (performance.now() - t0) / 1000 };
    for (const l of this.listeners) l(timing);
    live.forEach((it, i) => {
      const job = it.job;
      if (job.failed) return;
      job.out[it.index] = vectors[i];
      if (--job.left === 0) job.resolve(job.out);
    });
  }

  private fail(job: Job, err: Error): void {
    if (job.failed) return;
    job.failed = true;
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].job === job) this.queue.splice(i, 1);
    job.reject(err);
  }
}

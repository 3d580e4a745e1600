/** When the IVF catalogue trains a model's index, and the centroids a training starts from. */
import Database from 'better-sqlite3';
import { blobVector, kmeans, normalize } from './ivf';
import { IvfOptions, listsFor } from './ivf.options';
import { Row } from './sqlite.schema';

/** What the schedule reads of a model's IVF: its size and the vectors it was trained on. */
interface Trained {
  ivf: { size: number };
  trainedCount: number;
}

/**
 * Which models are due a training: one without an IVF once it has `ivfMinVectors` vectors, one with an
 * IVF once its vectors have grown `ivfRetrainFactor` times since it was trained. Writes are tallied per
 * model, so a model without an IVF is counted exactly only when its writes could bring it to the threshold.
 */
export class IvfTrainingSchedule {
  /** Vectors written per model since they were last counted (cheap trigger for the exact count). */
  private readonly written = new Map<string, number>();
  private readonly counted = new Map<string, number>();

  constructor(
    private readonly db: Database.Database,
    private readonly opts: Required<IvfOptions>,
  ) {}

  /** `count` vectors of `model` are written (or rewritten). */
  wrote(model: string, count: number): void {
    this.written.set(model, (this.written.get(model) ?? 0) + count);
  }

  /** The lists were (re)loaded: models without an IVF are counted when a write could bring them to the threshold. */
  reset(): void {
    this.counted.clear();
  }

  /** The models due a (re)training, each with its exact vector count (yielded one at a time, as each is trained). */
  *due(anns: ReadonlyMap<string, Trained>): Generator<[string, number]> {
    const count = (model: string) =>
      (this.db.prepare(`SELECT count(*) AS n FROM chunks WHERE model = ? AND vector IS NOT NULL`).get(model) as Row)
        .n as number;
    for (const [model, added] of this.written) {
      const a = anns.get(model);
      if (!a && !this.counted.has(model)) {
        // the first write of a model without an IVF since the load: counted once (not at start)
        this.counted.set(model, count(model));
        this.written.set(model, 0);
      }
      // models with an IVF know their size; others are counted only when the writes could reach the threshold
      const estimate = a ? a.ivf.size : this.counted.get(model)! + (this.written.get(model) ?? added);
      const due = a ? estimate >= a.trainedCount * this.opts.ivfRetrainFactor : estimate >= this.opts.ivfMinVectors;
      if (!due) continue;
      const n = count(model);
      this.counted.set(model, n);
      this.written.set(model, 0);
      if (n < this.opts.ivfMinVectors || (a && n < a.trainedCount * this.opts.ivfRetrainFactor)) continue;
      yield [model, n];
    }
  }
}

/** k-means centroids of a sample of up to ~20,000 of the model's `n` vectors (null: it has none). */
export function sampleCentroids(
  db: Database.Database,
  opts: Required<IvfOptions>,
  model: string,
  n: number,
): { dims: number; centroids: Float32Array } | null {
  const step = Math.max(1, Math.floor(n / 20_000));
  const sample: Float32Array[] = [];
  let dims = 0;
  let i = 0;
  for (const r of db
    .prepare(`SELECT vector FROM chunks WHERE model = ? AND vector IS NOT NULL`)
    .iterate(model) as IterableIterator<Row>) {
    if (i++ % step) continue;
    const v = blobVector(r.vector as Buffer);
    dims ||= v.length;
    if (v.length === dims) sample.push(normalize(v));
  }
  if (!sample.length) return null;
  return { dims, centroids: kmeans(sample, Math.min(listsFor(opts, n), Math.max(1, Math.floor(sample.length / 8)))) };
}

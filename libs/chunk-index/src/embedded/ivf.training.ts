/** When the IVF catalogue trains a model's index, and the centroids a training starts from. */
import Database from 'better-sqlite3';
import { blobVector, IvfIndex, kmeans, normalize } from './ivf';
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

/**
 * Every stored vector of `model` (of the index's dimensions) quantised into `ivf`, a freshly trained and
 * empty index: the rows are read one at a time (no row is held past its code), the codes gathered, and
 * each list loaded once at its final size (no list grows step by step, leaving freed blocks behind).
 * `group` maps a store id to its group (called after the read: it may write). Answers each id's list,
 * for `chunks.list`.
 */
export function fillTrained(
  db: Database.Database,
  model: string,
  ivf: IvfIndex,
  n: number,
  group: (storeId: string) => number,
): { ids: Int32Array; lists: Int32Array } {
  const { dims, stride } = ivf;
  let cap = Math.max(16, n);
  let ids = new Int32Array(cap);
  let lists = new Int32Array(cap);
  let stores = new Int32Array(cap);
  let codes = new Int8Array(cap * stride);
  const storeIds: string[] = [];
  const storeIndex = new Map<string, number>();
  const unit = new Float32Array(dims);
  let k = 0;
  for (const [id, storeId, blob] of db
    .prepare(`SELECT id, store_id, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`)
    .raw()
    .iterate(model) as IterableIterator<[number, string, Buffer]>) {
    if (blob.byteLength !== dims * 4) continue;
    if (k === cap) {
      cap *= 2;
      const grow = <T extends Int32Array | Int8Array>(a: T, make: (len: number) => T, per = 1): T => {
        const b = make(cap * per);
        b.set(a);
        return b;
      };
      ids = grow(ids, (l) => new Int32Array(l));
      lists = grow(lists, (l) => new Int32Array(l));
      stores = grow(stores, (l) => new Int32Array(l));
      codes = grow(codes, (l) => new Int8Array(l), stride);
    }
    const v = blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, dims) : blobVector(blob);
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += v[d] * v[d];
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) unit[d] = v[d] / norm;
    let s = storeIndex.get(storeId);
    if (s === undefined) storeIndex.set(storeId, (s = storeIds.push(storeId) - 1));
    ids[k] = id;
    stores[k] = s;
    lists[k] = ivf.listOf(unit);
    ivf.quantize(unit, codes, k * stride);
    k++;
  }
  const groups = storeIds.map(group);
  // a counting sort by list: each list's entries together, in the order they were read
  const starts = new Int32Array(ivf.nlist + 1);
  for (let i = 0; i < k; i++) starts[lists[i] + 1]++;
  for (let l = 0; l < ivf.nlist; l++) starts[l + 1] += starts[l];
  const order = new Int32Array(k);
  const next = starts.slice(0, ivf.nlist);
  for (let i = 0; i < k; i++) order[next[lists[i]]++] = i;
  ivf.reserve(
    Array.from({ length: ivf.nlist }, (_, l) =>
      starts[l + 1] > starts[l] ? IvfIndex.capacityFor(starts[l + 1] - starts[l]) : 0,
    ),
  );
  for (let l = 0; l < ivf.nlist; l++) {
    const size = starts[l + 1] - starts[l];
    if (!size) continue;
    const lids = new Int32Array(size);
    const lgroups = new Int32Array(size);
    const lcodes = new Uint8Array(size * stride);
    for (let j = 0; j < size; j++) {
      const i = order[starts[l] + j];
      lids[j] = ids[i];
      lgroups[j] = groups[stores[i]];
      lcodes.set(new Uint8Array(codes.buffer, i * stride, stride), j * stride);
    }
    ivf.loadList(l, lids, lgroups, lcodes);
  }
  return { ids: ids.subarray(0, k), lists: lists.subarray(0, k) };
}

import Database from 'better-sqlite3';
import { blobVector, cosine, IvfIndex, kmeans, normalize } from './ivf';
import { Row } from './sqlite.schema';
import { ChunkQuery } from '../chunk-index.port';

export interface IvfOptions {
  /** A model's vectors get an IVF index once it has this many (below, dense search is an exact scan). */
  ivfMinVectors?: number;
  /** Lists of the IVF index (k-means centroids). */
  ivfLists?: number;
  /** Lists scanned per query. */
  ivfProbes?: number;
  /** The centroids are retrained (and every vector reassigned) when the model's vectors grow this many times. */
  ivfRetrainFactor?: number;
}

/** The defaults of the IVF options. */
export const DEFAULT_IVF_OPTIONS: Required<IvfOptions> = { ivfMinVectors: 20_000, ivfLists: 256, ivfProbes: 8, ivfRetrainFactor: 10 };

interface Ann {
  model: string;
  ivf: IvfIndex;
  trainedCount: number;
  /** vectors per store group, to choose between the IVF and an exact scan */
  perGroup: Map<number, number>;
}

/** Where a vector goes in its model's IVF: its direction and list. */
export interface IvfPlacement {
  unit: Float32Array;
  list: number;
}

/**
 * The embedded chunk index's IVF indexes, one per embedding model, in memory (ivf.ts), with their
 * centroids and each vector's list kept in the SQLite file (`ivf_centroids`, `chunks.list`). It loads
 * them at start and reloads them after another connection's commit; trains a model's index once the
 * model has `ivfMinVectors` vectors and retrains it when they have grown `ivfRetrainFactor` times;
 * mirrors a write's added and removed vectors once its transaction commits; drops them all on reset;
 * and answers dense queries on stores large enough for the IVF to pay off.
 */
export class IvfCatalogue {
  private readonly opts: Required<IvfOptions>;
  private readonly anns = new Map<string, Ann>();
  /** A small integer per store id (the IVF's store groups). */
  private readonly groups = new Map<string, number>();
  /** SQLite's data_version when the in-memory IVF lists were loaded (another connection's commit changes it). */
  private loadedVersion: number | null = null;
  /** The open write's vectors, applied to the lists once its transaction commits. */
  private pendingAdds: Array<{ model: string; id: number; storeId: string; list: number; unit: Float32Array }> = [];
  private pendingRemovals: number[] = [];
  /** Vectors written per model since they were last counted (cheap trigger for the exact count). */
  private readonly written = new Map<string, number>();
  private readonly counted = new Map<string, number>();

  constructor(
    private readonly db: Database.Database,
    options: IvfOptions = {},
  ) {
    this.opts = { ...DEFAULT_IVF_OPTIONS, ...options };
  }

  /** (Re)loads the IVF lists from the file: at start, and after another process wrote to it. */
  load(): void {
    this.anns.clear();
    this.groups.clear();
    for (const c of this.db.prepare(`SELECT * FROM ivf_centroids`).all() as Row[]) {
      const buf = c.centroids as Buffer;
      const centroids = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      const a: Ann = { model: c.model as string, ivf: new IvfIndex(c.dims as number, centroids), trainedCount: c.trained_count as number, perGroup: new Map() };
      this.anns.set(a.model, a);
      const unassigned: Array<[number, number]> = [];
      // raw rows and no per-row copies: a start loads every vector of the model
      const rows = this.db.prepare(`SELECT id, store_id, list, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).raw();
      for (const [id, storeId, stored, blob] of rows.iterate(a.model) as IterableIterator<[number, string, number | null, Buffer]>) {
        const v = blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2) : blobVector(blob);
        if (v.length !== a.ivf.dims) continue;
        let list = stored;
        if (list === null) unassigned.push([(list = a.ivf.listOf(v)), id]); // a list choice needs no normalising
        this.add(a, id, storeId, list, v);
      }
      if (unassigned.length) {
        const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
        this.db.transaction(() => unassigned.forEach(([l, id]) => upd.run(l, id)))();
      }
    }
    this.counted.clear();
    for (const r of this.db.prepare(`SELECT model, count(*) AS n FROM chunks WHERE vector IS NOT NULL GROUP BY model`).all() as Row[]) this.counted.set(r.model as string, r.n as number);
    this.loadedVersion = this.db.pragma('data_version', { simple: true }) as number;
  }

  /** Reloads the lists when another connection has committed since they were loaded. */
  refresh(): void {
    if (this.db.pragma('data_version', { simple: true }) !== this.loadedVersion) this.load();
  }

  /** Inside the caller's transaction: forgets every model's centroids (call `load()` once it commits). */
  drop(): void {
    this.db.exec(`DELETE FROM ivf_centroids`);
  }

  /** A write begins: up to date with the file, nothing pending. */
  begin(): void {
    this.refresh();
    this.discard();
  }

  /** The write's transaction failed: its vectors never reach the lists. */
  discard(): void {
    this.pendingAdds = [];
    this.pendingRemovals = [];
  }

  /** The write's transaction committed: mirror it in memory, then train or retrain where due. */
  commit(): void {
    for (const id of this.pendingRemovals) for (const a of this.anns.values()) this.remove(a, id);
    for (const x of this.pendingAdds) {
      const a = this.anns.get(x.model);
      if (a) this.add(a, x.id, x.storeId, x.list, x.unit);
    }
    this.discard();
    this.trainDue();
  }

  /** Inside the write: rows about to be deleted (or re-vectored) leave the lists once the transaction commits. */
  removing(where: string, ...args: unknown[]): void {
    if (!this.anns.size) return;
    for (const r of this.db.prepare(`SELECT id FROM chunks WHERE ${where} AND list IS NOT NULL`).all(...args) as Row[]) this.pendingRemovals.push(r.id as number);
  }

  /**
   * Inside the write, before the `count` vectors of `model` of the rows matching `where` are rewritten:
   * the old ones leave the model's lists, and the model's count moves toward a (re)training.
   */
  revectoring(model: string, count: number, where: string, ...args: unknown[]): void {
    if (this.anns.has(model)) this.removing(where, ...args);
    this.written.set(model, (this.written.get(model) ?? 0) + count);
  }

  /** The list a vector of `model` goes to, or null when the model has no IVF (or the dimensions differ). */
  place(model: string, v: Float32Array): IvfPlacement | null {
    const a = this.anns.get(model);
    if (!a || v.length !== a.ivf.dims) return null;
    const unit = normalize(v);
    return { unit, list: a.ivf.listOf(unit) };
  }

  /** Inside the write: the placed vector of row `id` joins its list once the transaction commits. */
  adding(model: string, id: number, storeId: string, p: IvfPlacement): void {
    this.pendingAdds.push({ model, id, storeId, list: p.list, unit: p.unit });
  }

  /**
   * Dense search through the IVF of the query's model: int8 candidates re-scored exactly with the stored
   * float vectors, best first (file exclusions applied, the metadata filter left to the caller). Null
   * when the IVF does not apply (no IVF for the model, restricted files, or too few vectors in the
   * candidate stores): an exact scan answers then.
   */
  search(q: ChunkQuery): Array<{ id: number; score: number }> | null {
    const a = this.annFor(q);
    if (!a) return null;
    const unit = normalize(q.vector!);
    const mask = new Uint8Array(this.groups.size);
    for (const s of q.storeIds) {
      const g = this.groups.get(s);
      if (g !== undefined) mask[g] = 1;
    }
    const filtered = !!(q.filter || q.fileIds?.exclude?.length);
    const k = filtered ? Math.max(q.topK * 20, 1000) : Math.max(q.topK * 4, 40);
    let candidates = a.ivf.search(unit, this.opts.ivfProbes, mask, k);
    if (!candidates.length) return [];
    // An int8 score is within a few thousandths of the exact one (rounding error ≈ 0.0023 standard
    // deviation for unit vectors), so a candidate more than RESCORE_MARGIN below the topK-th can not
    // enter the exact top: only the rest are re-scored. Filters keep every candidate (any may fail).
    if (!filtered && candidates.length > q.topK) {
      const floor = candidates[q.topK - 1].score - RESCORE_MARGIN;
      candidates = candidates.filter((c, i) => i < q.topK || c.score >= floor);
    }
    // exact scores from the stored vectors; the full rows are the caller's, only of those that can be answered
    const exclude = new Set(q.fileIds?.exclude ?? []);
    const exact: Array<{ id: number; score: number }> = [];
    for (let i = 0; i < candidates.length; i += 500) {
      const ids = candidates.slice(i, i + 500).map((c) => c.id);
      const vs = this.db.prepare(`SELECT id, file_id, vector FROM chunks WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids) as Row[];
      for (const r of vs) if (!exclude.has(r.file_id as string)) exact.push({ id: r.id as number, score: cosine(unit, blobVector(r.vector as Buffer)) });
    }
    exact.sort((x, y) => y.score - x.score);
    return filtered ? exact : exact.slice(0, q.topK);
  }

  /** The IVF of the query's model when the candidate stores hold enough vectors for it to pay off. */
  private annFor(q: ChunkQuery): Ann | null {
    if (!q.model || q.fileIds?.include) return null;
    this.refresh();
    const a = this.anns.get(q.model);
    if (!a || a.ivf.dims !== q.vector!.length) return null;
    let n = 0;
    for (const s of q.storeIds) n += a.perGroup.get(this.groups.get(s) ?? -1) ?? 0;
    return n >= this.opts.ivfMinVectors ? a : null;
  }

  private group(storeId: string): number {
    let g = this.groups.get(storeId);
    if (g === undefined) this.groups.set(storeId, (g = this.groups.size));
    return g;
  }

  /** `vector` need not be normalised (the IVF quantises its direction). */
  private add(a: Ann, id: number, storeId: string, list: number, vector: Float32Array): void {
    this.remove(a, id);
    const g = this.group(storeId);
    a.ivf.add(id, g, list, vector);
    a.perGroup.set(g, (a.perGroup.get(g) ?? 0) + 1);
  }

  private remove(a: Ann, id: number): void {
    const g = a.ivf.remove(id);
    if (g >= 0) a.perGroup.set(g, (a.perGroup.get(g) ?? 1) - 1);
  }

  /** Trains a model's IVF once it has enough vectors, and retrains it when it has grown `ivfRetrainFactor` times. */
  private trainDue(): void {
    for (const [model, added] of this.written) {
      const a = this.anns.get(model);
      // models with an IVF know their size; others are counted only when the writes could reach the threshold
      const estimate = a ? a.ivf.size : (this.counted.get(model) ?? 0) + added;
      const due = a ? estimate >= a.trainedCount * this.opts.ivfRetrainFactor : estimate >= this.opts.ivfMinVectors;
      if (!due) continue;
      const n = (this.db.prepare(`SELECT count(*) AS n FROM chunks WHERE model = ? AND vector IS NOT NULL`).get(model) as Row).n as number;
      this.counted.set(model, n);
      this.written.set(model, 0);
      if (n < this.opts.ivfMinVectors || (a && n < a.trainedCount * this.opts.ivfRetrainFactor)) continue;
      this.train(model, n);
    }
  }

  /** k-means on a sample of up to ~20,000 of the model's vectors; every vector is (re)assigned a list. */
  private train(model: string, n: number): void {
    const step = Math.max(1, Math.floor(n / 20_000));
    const sample: Float32Array[] = [];
    let dims = 0;
    let i = 0;
    for (const r of this.db.prepare(`SELECT vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).iterate(model) as IterableIterator<Row>) {
      if (i++ % step) continue;
      const v = blobVector(r.vector as Buffer);
      dims ||= v.length;
      if (v.length === dims) sample.push(normalize(v));
    }
    if (!sample.length) return;
    const centroids = kmeans(sample, Math.min(this.opts.ivfLists, Math.max(1, Math.floor(sample.length / 8))));
    const ivf = new IvfIndex(dims, centroids);
    const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
    const a: Ann = { model, ivf, trainedCount: n, perGroup: new Map() };
    this.db.transaction(() => {
      for (const r of this.db.prepare(`SELECT id, store_id, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).all(model) as Row[]) {
        const v = blobVector(r.vector as Buffer);
        if (v.length !== dims) continue;
        const unit = normalize(v);
        const list = ivf.listOf(unit);
        upd.run(list, r.id);
        this.add(a, r.id as number, r.store_id as string, list, unit);
      }
      this.db
        .prepare(
          `INSERT INTO ivf_centroids (model, dims, centroids, trained_count) VALUES (?, ?, ?, ?) ON CONFLICT (model) DO UPDATE SET dims = excluded.dims, centroids = excluded.centroids, trained_count = excluded.trained_count`,
        )
        .run(model, dims, Buffer.from(centroids.buffer, centroids.byteOffset, centroids.byteLength), n);
    })();
    this.anns.set(model, a);
  }
}

/** Int8 scores below the topK-th by more than this are not re-scored (see `search`). */
const RESCORE_MARGIN = 0.02;

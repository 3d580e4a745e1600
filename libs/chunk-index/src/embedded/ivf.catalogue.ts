import Database from 'better-sqlite3';
import { IvfIndex, normalize } from './ivf';
import { DEFAULT_IVF_OPTIONS, IvfOptions, probesOf } from './ivf.options';
import { IvfBuilt, IvfRead, readIvf, readVectors, writeList } from './ivf.persisted';
import { searchIvf } from './ivf.rescore';
import { fillTrained, IvfTrainingSchedule, sampleCentroids } from './ivf.training';
import { ChunkQuery } from '../chunk-index.port';

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
 * The embedded chunk index's IVF indexes, one per embedding model, in memory (ivf.ts), and persisted
 * in the SQLite file so that a start reads them in bulk instead of rebuilding them from every vector:
 * `ivf_centroids` (per model), `ivf_lists` (per list: ids, store groups and int8 codes as blobs, the
 * base), `ivf_delta` (per vector added or removed since its list's base: its code, or a tombstone),
 * `ivf_stores` (the store groups) and `chunks.list`. A write's delta rows go in the write's own
 * transaction, so the file is always consistent with its chunks (a crash at any point leaves both as
 * of the last commit); a list whose delta has grown past an eighth of it is folded into a new base
 * (one list's blob, in its own transaction). A file without persisted lists (an older release) is
 * loaded from its vectors once and persisted. The catalogue trains a model's index once the model has
 * `ivfMinVectors` vectors and retrains it when they have grown `ivfRetrainFactor` times; mirrors a
 * write's added and removed vectors once its transaction commits; reloads after another connection's
 * commit; drops them all on reset; and answers dense queries on stores large enough for the IVF to pay off.
 */
export class IvfCatalogue {
  private readonly opts: Required<IvfOptions>;
  private readonly anns = new Map<string, Ann>();
  /** A small integer per store id (the IVF's store groups). */
  private readonly groups = new Map<string, number>();
  /** SQLite's data_version when the in-memory IVF lists were loaded (another connection's commit changes it). */
  private loadedVersion: number | null = null;
  /** The open write's vectors, applied to the lists once its transaction commits. */
  private pendingAdds: Array<{ model: string; id: number; group: number; list: number; code: Int8Array }> = [];
  private pendingRemovals: Array<{ model: string; id: number; list: number }> = [];
  /** Store groups the open write created (forgotten if it rolls back). */
  private pendingGroups: string[] = [];
  /** The re-scoring's statements, by placeholder count (and whether they read the file ids an exclusion needs). */
  private readonly rescoreStatements: Record<string, Database.Statement> = {};
  /** Rows in `ivf_delta` per model and list (a list's base is rewritten once they outgrow it). */
  private readonly deltas = new Map<string, Map<number, number>>();
  /** How long the last `load()` took, and how (for the benchmarks and the logs). */
  lastLoad: { ms: number; vectors: number; from: 'persisted' | 'vectors' | 'none' } = {
    ms: 0,
    vectors: 0,
    from: 'none',
  };
  /** Which models are due a (re)training. */
  private readonly training: IvfTrainingSchedule;

  constructor(
    private readonly db: Database.Database,
    options: IvfOptions = {},
  ) {
    this.opts = { ...DEFAULT_IVF_OPTIONS, ...options };
    this.training = new IvfTrainingSchedule(db, this.opts);
  }

  /**
   * (Re)loads the IVF lists from the file: at start, and after another process wrote to it. `built` is
   * what `buildIvf` answers for the file as it is now (a start builds it in a worker thread meanwhile:
   * ivf.prefetch.ts); without it the file is read here.
   */
  load(built?: IvfBuilt): void {
    const t0 = performance.now();
    this.anns.clear();
    this.groups.clear();
    this.deltas.clear();
    this.discard();
    // (the file's version read in the same snapshot as the lists: a commit by another process after it is seen by the next refresh)
    let version: number | null = null;
    const r =
      built ??
      this.db.transaction(() => {
        version = this.db.pragma('data_version', { simple: true }) as number;
        return readIvf(this.db, (dims, centroids) => new IvfIndex(dims, centroids));
      })();
    for (const [storeId, grp] of r.groups) this.groups.set(storeId, grp);
    let from: 'persisted' | 'vectors' | 'none' = 'none';
    let vectors = 0;
    for (const m of r.models as Array<IvfRead['models'][number] | IvfBuilt['models'][number]>) {
      let ivf: IvfIndex;
      let persisted: { deltaCounts: Array<[number, number]>; perGroup?: Array<[number, number]> } | null;
      if ('built' in m) {
        ivf = m.built ? IvfIndex.adopt(m.built.ivf) : new IvfIndex(m.dims, m.centroids);
        persisted = m.built;
      } else {
        ivf = m.lists?.ivf ?? new IvfIndex(m.dims, m.centroids);
        persisted = m.lists;
      }
      const a: Ann = { model: m.model, ivf, trainedCount: m.trainedCount, perGroup: new Map() };
      this.anns.set(a.model, a);
      if (persisted) {
        this.deltas.set(a.model, new Map(persisted.deltaCounts));
        from = from === 'vectors' ? from : 'persisted';
      } else {
        this.loadFromVectors(a);
        from = 'vectors';
      }
      a.perGroup = persisted?.perGroup ? new Map(persisted.perGroup) : a.ivf.groupCounts();
      vectors += a.ivf.size;
    }
    // models without an IVF are counted when a write could bring them to the threshold (trainDue)
    this.training.reset();
    this.loadedVersion = version ?? (this.db.pragma('data_version', { simple: true }) as number);
    this.lastLoad = { ms: performance.now() - t0, vectors, from };
  }

  /** The model's lists rebuilt from every stored vector (a file of an older release), then persisted. */
  private loadFromVectors(a: Ann): void {
    const { entries, unassigned } = readVectors(this.db, a.model, a.ivf);
    this.db.transaction(() => {
      for (const [id, storeId, list, v] of entries) a.ivf.add(id, this.group(storeId), list, v);
      const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
      for (const [l, id] of unassigned) upd.run(l, id);
      this.persistAll(a);
    })();
    this.pendingGroups = [];
  }

  /** Inside a transaction: every list of the model as its new base, no delta. */
  private persistAll(a: Ann): void {
    this.db.prepare(`DELETE FROM ivf_lists WHERE model = ?`).run(a.model);
    this.db.prepare(`DELETE FROM ivf_delta WHERE model = ?`).run(a.model);
    for (let l = 0; l < a.ivf.nlist; l++) this.persistList(a, l);
    this.deltas.set(a.model, new Map());
  }

  /** Inside a transaction: one list's in-memory entries as its new base (its delta folded in). */
  private persistList(a: Ann, list: number): void {
    writeList(this.db, a.model, list, a.ivf);
    this.deltas.get(a.model)?.delete(list);
  }

  /** Folds the delta of each list that has outgrown an eighth of it into a new base (after a commit). */
  private compactDue(): void {
    const due: Array<[Ann, number]> = [];
    for (const [model, counts] of this.deltas) {
      const a = this.anns.get(model);
      if (!a) continue;
      for (const [list, n] of counts)
        if (n > Math.max(this.opts.ivfCompactMinDelta, a.ivf.slots(list) / 8)) due.push([a, list]);
    }
    if (!due.length) return;
    const tx = this.db.transaction(() => {
      // the in-memory lists are the file's only while no other connection has written since they were loaded
      if (this.db.pragma('data_version', { simple: true }) !== this.loadedVersion) return;
      for (const [a, list] of due) this.persistList(a, list);
    });
    try {
      tx.immediate();
    } catch (err) {
      // another connection holds the file (SQLITE_BUSY): the deltas stay, and are folded after a later write
      if (!(
        err instanceof Error &&
        /SQLITE_BUSY|database is locked/i.test(`${(err as { code?: string }).code ?? ''} ${err.message}`)
      ))
        throw err;
    }
  }

  /** Reloads the lists when another connection has committed since they were loaded. */
  refresh(): void {
    if (this.db.pragma('data_version', { simple: true }) !== this.loadedVersion) this.load();
  }

  /** Inside the caller's transaction: forgets every model's centroids and lists (call `load()` once it commits). */
  drop(): void {
    this.db.exec(`DELETE FROM ivf_centroids; DELETE FROM ivf_lists; DELETE FROM ivf_delta; DELETE FROM ivf_stores;`);
  }

  /** A write begins: up to date with the file, nothing pending. */
  begin(): void {
    this.refresh();
    this.discard();
  }

  /** The write's transaction failed (or is done with): its vectors never reach the lists, its new store groups are forgotten. */
  discard(): void {
    for (const s of this.pendingGroups) this.groups.delete(s);
    this.pendingGroups = [];
    this.pendingAdds = [];
    this.pendingRemovals = [];
  }

  /** The write's transaction committed: mirror it in memory, then train, retrain or fold deltas where due. */
  commit(): void {
    for (const r of this.pendingRemovals) {
      const a = this.anns.get(r.model);
      if (a) this.remove(a, r.id);
      this.countDelta(r.model, r.list);
    }
    for (const x of this.pendingAdds) {
      const a = this.anns.get(x.model);
      if (a) this.addCode(a, x.id, x.group, x.list, x.code);
      this.countDelta(x.model, x.list);
    }
    this.pendingGroups = [];
    this.discard();
    this.trainDue();
    this.compactDue();
  }

  private countDelta(model: string, list: number): void {
    let m = this.deltas.get(model);
    if (!m) this.deltas.set(model, (m = new Map<number, number>()));
    m.set(list, (m.get(list) ?? 0) + 1);
  }

  /** Inside the write: rows about to be deleted (or re-vectored) leave the lists once the transaction commits. */
  removing(where: string, ...args: unknown[]): void {
    if (!this.anns.size) return;
    const tomb = this.db.prepare(
      `INSERT INTO ivf_delta (model, list, id, grp, code) VALUES (?, ?, ?, NULL, NULL) ON CONFLICT (model, list, id) DO UPDATE SET grp = NULL, code = NULL`,
    );
    for (const [id, model, list] of this.db
      .prepare(`SELECT id, model, list FROM chunks WHERE ${where} AND list IS NOT NULL`)
      .raw()
      .all(...args) as Array<[number, string, number]>) {
      if (!this.anns.has(model)) continue;
      tomb.run(model, list, id);
      this.pendingRemovals.push({ model, id, list });
    }
  }

  /**
   * Inside the write, before the `count` vectors of `model` of the rows matching `where` are rewritten:
   * the old ones leave the model's lists, and the model's count moves toward a (re)training.
   */
  revectoring(model: string, count: number, where: string, ...args: unknown[]): void {
    if (this.anns.has(model)) this.removing(where, ...args);
    this.training.wrote(model, count);
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
    const a = this.anns.get(model)!;
    const code = new Int8Array(a.ivf.stride);
    a.ivf.quantize(p.unit, code);
    const group = this.group(storeId);
    this.db
      .prepare(
        `INSERT INTO ivf_delta (model, list, id, grp, code) VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, list, id) DO UPDATE SET grp = excluded.grp, code = excluded.code`,
      )
      .run(model, p.list, id, group, Buffer.from(code.buffer, code.byteOffset, code.byteLength));
    this.pendingAdds.push({ model, id, group, list: p.list, code });
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
    return searchIvf(this.db, this.rescoreStatements, a.ivf, probesOf(this.opts, a.ivf.nlist), this.groups, q);
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

  /** A store's group; a new one is persisted (call inside a transaction). */
  private group(storeId: string): number {
    let g = this.groups.get(storeId);
    if (g === undefined) {
      this.groups.set(storeId, (g = this.groups.size));
      this.pendingGroups.push(storeId);
      this.db
        .prepare(
          `INSERT INTO ivf_stores (store_id, grp) VALUES (?, ?) ON CONFLICT (store_id) DO UPDATE SET grp = excluded.grp`,
        )
        .run(storeId, g);
    }
    return g;
  }

  private addCode(a: Ann, id: number, group: number, list: number, code: Int8Array): void {
    this.remove(a, id);
    a.ivf.addCode(id, group, list, code);
    a.perGroup.set(group, (a.perGroup.get(group) ?? 0) + 1);
  }

  private remove(a: Ann, id: number): void {
    const g = a.ivf.remove(id);
    if (g >= 0) a.perGroup.set(g, (a.perGroup.get(g) ?? 1) - 1);
  }

  /** Trains a model's IVF once it has enough vectors, and retrains it when it has grown `ivfRetrainFactor` times. */
  private trainDue(): void {
    for (const [model, n] of this.training.due(this.anns)) this.train(model, n);
  }

  /** k-means on a sample of the model's vectors (ivf.training.ts); every vector is (re)assigned a list. */
  private train(model: string, n: number): void {
    const trained = sampleCentroids(this.db, this.opts, model, n);
    if (!trained) return;
    const { dims, centroids } = trained;
    const ivf = new IvfIndex(dims, centroids);
    const a: Ann = { model, ivf, trainedCount: n, perGroup: new Map() };
    this.db.transaction(() => {
      const { ids, lists } = fillTrained(this.db, model, ivf, n, (storeId) => this.group(storeId));
      const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
      for (let i = 0; i < ids.length; i++) upd.run(lists[i], ids[i]);
      a.perGroup = ivf.groupCounts();
      this.deltas.set(model, new Map());
      this.persistAll(a);
      this.db
        .prepare(
          `INSERT INTO ivf_centroids (model, dims, centroids, trained_count) VALUES (?, ?, ?, ?) ON CONFLICT (model) DO UPDATE SET dims = excluded.dims, centroids = excluded.centroids, trained_count = excluded.trained_count`,
        )
        .run(model, dims, Buffer.from(centroids.buffer, centroids.byteOffset, centroids.byteLength), n);
    })();
    this.pendingGroups = [];
    this.anns.set(model, a);
  }
}

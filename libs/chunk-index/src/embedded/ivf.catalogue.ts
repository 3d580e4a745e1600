import Database from 'better-sqlite3';
import { blobCosine, blobVector, IvfIndex, IvfIndexState, kmeans, normalize } from './ivf';
import { Row } from './sqlite.schema';
import { ChunkQuery } from '../chunk-index.port';

export interface IvfOptions {
  /** A model's vectors get an IVF index once it has this many (below, dense search is an exact scan). */
  ivfMinVectors?: number;
  /**
   * Lists of the IVF index (k-means centroids); 0 (the default): by the vectors it is trained on
   * (ivfListsFor), with ivfProbes scaled to them (ivfProbesFor).
   */
  ivfLists?: number;
  /** Lists scanned per query: with ivfLists given, as given; with ivfLists 0, per 256 lists (scaled: ivfProbesFor). */
  ivfProbes?: number;
  /** The centroids are retrained (and every vector reassigned) when the model's vectors grow this many times. */
  ivfRetrainFactor?: number;
  /** A list's persisted delta is folded into its base once it has more rows than this and an eighth of the list. */
  ivfCompactMinDelta?: number;
}

/** The defaults of the IVF options. */
export const DEFAULT_IVF_OPTIONS: Required<IvfOptions> = { ivfMinVectors: 20_000, ivfLists: 0, ivfProbes: 16, ivfRetrainFactor: 10, ivfCompactMinDelta: 256 };

/**
 * The lists of an IVF trained on `n` vectors where ivfLists is 0: a power of two near n / 200, from 256 to
 * 4,096 (the first training, at 20k vectors, and a 100k store: 256; a store retrained at 200k: 1,024). Finer
 * lists reach the same recall scanning a smaller share of the vectors, which is what a query at 1M costs
 * (the int8 scan is memory-bound). Measured on real text (search-speed-real, 100k WordNet glosses by the
 * bundled model, GCIDE queries), recall@10 at 6.25% of the vectors scanned: 256 lists 0.952, 512 0.966,
 * 1,024 0.980; at ~4.7%: 512 lists 0.950, 1,024 0.970; at 3.1%: 512 0.912, 1,024 0.940.
 */
export function ivfListsFor(n: number): number {
  return Math.min(4096, Math.max(256, 2 ** Math.round(Math.log2(Math.max(1, n / 200)))));
}

/**
 * The lists scanned of an IVF of `nlist` lists where ivfLists is 0: `probes` (the count for 256 lists)
 * × (nlist / 256)^0.75: 16 of 256 (6.25%, recall@10 0.952 on real text), 27 of 512 (5.3%; 24 gave 0.950, 32
 * 0.966), 45 of 1,024 (4.4%; 32 gave 0.940, 48 0.970). Fewer vectors read than 6.25% at 1,024 lists, for a
 * recall at least as high.
 */
export function ivfProbesFor(probes: number, nlist: number): number {
  return Math.min(nlist, Math.max(1, Math.round(probes * Math.pow(nlist / 256, 0.75))));
}

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
  lastLoad: { ms: number; vectors: number; from: 'persisted' | 'vectors' | 'none' } = { ms: 0, vectors: 0, from: 'none' };
  /** Vectors written per model since they were last counted (cheap trigger for the exact count). */
  private readonly written = new Map<string, number>();
  private readonly counted = new Map<string, number>();

  constructor(
    private readonly db: Database.Database,
    options: IvfOptions = {},
  ) {
    this.opts = { ...DEFAULT_IVF_OPTIONS, ...options };
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
    this.counted.clear();
    this.loadedVersion = version ?? (this.db.pragma('data_version', { simple: true }) as number);
    this.lastLoad = { ms: performance.now() - t0, vectors, from };
  }

  /** The model's lists rebuilt from every stored vector (a file of an older release), then persisted. */
  private loadFromVectors(a: Ann): void {
    const unassigned: Array<[number, number]> = [];
    // raw rows and no per-row copies: this reads every vector of the model
    const rows = this.db.prepare(`SELECT id, store_id, list, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).raw();
    const entries: Array<[number, string, number, Float32Array]> = [];
    for (const [id, storeId, stored, blob] of rows.iterate(a.model) as IterableIterator<[number, string, number | null, Buffer]>) {
      const v = blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2) : blobVector(blob);
      if (v.length !== a.ivf.dims) continue;
      let list = stored;
      if (list === null) unassigned.push([(list = a.ivf.listOf(v)), id]); // a list choice needs no normalising
      entries.push([id, storeId, list, v]);
    }
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
    const { ids, groups, codes } = a.ivf.exportList(list);
    const buf = (x: Int32Array | Uint8Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
    this.db
      .prepare(
        `INSERT INTO ivf_lists (model, list, size, ids, groups, codes) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model, list) DO UPDATE SET size = excluded.size, ids = excluded.ids, groups = excluded.groups, codes = excluded.codes`,
      )
      .run(a.model, list, ids.length, buf(ids), buf(groups), buf(codes));
    this.db.prepare(`DELETE FROM ivf_delta WHERE model = ? AND list = ?`).run(a.model, list);
    this.deltas.get(a.model)?.delete(list);
  }

  /** Folds the delta of each list that has outgrown an eighth of it into a new base (after a commit). */
  private compactDue(): void {
    const due: Array<[Ann, number]> = [];
    for (const [model, counts] of this.deltas) {
      const a = this.anns.get(model);
      if (!a) continue;
      for (const [list, n] of counts) if (n > Math.max(this.opts.ivfCompactMinDelta, a.ivf.slots(list) / 8)) due.push([a, list]);
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
      if (!(err instanceof Error && /SQLITE_BUSY|database is locked/i.test(`${(err as { code?: string }).code ?? ''} ${err.message}`))) throw err;
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
    const tomb = this.db.prepare(`INSERT INTO ivf_delta (model, list, id, grp, code) VALUES (?, ?, ?, NULL, NULL) ON CONFLICT (model, list, id) DO UPDATE SET grp = NULL, code = NULL`);
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
    const a = this.anns.get(model)!;
    const code = new Int8Array(a.ivf.stride);
    a.ivf.quantize(p.unit, code);
    const group = this.group(storeId);
    this.db
      .prepare(`INSERT INTO ivf_delta (model, list, id, grp, code) VALUES (?, ?, ?, ?, ?) ON CONFLICT (model, list, id) DO UPDATE SET grp = excluded.grp, code = excluded.code`)
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
    const unit = normalize(q.vector!);
    const mask = new Uint8Array(this.groups.size);
    for (const s of q.storeIds) {
      const g = this.groups.get(s);
      if (g !== undefined) mask[g] = 1;
    }
    const filtered = !!(q.filter || q.fileIds?.exclude?.length);
    const k = filtered ? Math.max(q.topK * 20, 1000) : Math.max(q.topK * 4, 40);
    let candidates = a.ivf.search(unit, this.probesOf(a.ivf.nlist), mask, k);
    if (!candidates.length) return [];
    // An int8 score is within a few thousandths of the exact one (rounding error ≈ 0.0023 standard
    // deviation for unit vectors), so a candidate more than RESCORE_MARGIN below the topK-th can not
    // enter the exact top: only the rest are re-scored. Filters keep every candidate (any may fail).
    if (!filtered && candidates.length > q.topK) {
      const floor = candidates[q.topK - 1].score - RESCORE_MARGIN;
      candidates = candidates.filter((c, i) => i < q.topK || c.score >= floor);
    }
    // exact scores from the stored vectors; the full rows are the caller's, only of those that can be answered
    const exclude = q.fileIds?.exclude?.length ? new Set(q.fileIds.exclude) : null;
    const exact: Array<{ id: number; score: number }> = [];
    for (let i = 0; i < candidates.length; i += RESCORE_BATCH) {
      const ids: Array<number | null> = candidates.slice(i, i + RESCORE_BATCH).map((c) => c.id);
      // the statement's placeholders padded (NULL) to a power of two: a few cached statements serve every count
      let slots = 16;
      while (slots < ids.length) slots *= 2;
      while (ids.length < slots) ids.push(null);
      const key = `${exclude ? 'x' : ''}${slots}`;
      const stmt = (this.rescoreStatements[key] ??= this.db.prepare(`SELECT id, ${exclude ? 'file_id, ' : ''}vector FROM chunks WHERE id IN (${'?,'.repeat(slots - 1)}?)`));
      for (const r of stmt.all(...ids) as Row[]) if (!exclude?.has(r.file_id as string)) exact.push({ id: r.id as number, score: blobCosine(unit, r.vector as Buffer) });
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

  /** A store's group; a new one is persisted (call inside a transaction). */
  private group(storeId: string): number {
    let g = this.groups.get(storeId);
    if (g === undefined) {
      this.groups.set(storeId, (g = this.groups.size));
      this.pendingGroups.push(storeId);
      this.db.prepare(`INSERT INTO ivf_stores (store_id, grp) VALUES (?, ?) ON CONFLICT (store_id) DO UPDATE SET grp = excluded.grp`).run(storeId, g);
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
    const count = (model: string) => (this.db.prepare(`SELECT count(*) AS n FROM chunks WHERE model = ? AND vector IS NOT NULL`).get(model) as Row).n as number;
    for (const [model, added] of this.written) {
      const a = this.anns.get(model);
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
      this.train(model, n);
    }
  }

  /** The lists of an IVF trained on n vectors: ivfLists where given, else by n (ivfListsFor). */
  private listsFor(n: number): number {
    return this.opts.ivfLists > 0 ? this.opts.ivfLists : ivfListsFor(n);
  }

  /** The lists a query scans of an IVF of nlist lists: ivfProbes where ivfLists is given, else scaled to nlist (ivfProbesFor). */
  private probesOf(nlist: number): number {
    return this.opts.ivfLists > 0 ? this.opts.ivfProbes : ivfProbesFor(this.opts.ivfProbes, nlist);
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
    const centroids = kmeans(sample, Math.min(this.listsFor(n), Math.max(1, Math.floor(sample.length / 8))));
    const ivf = new IvfIndex(dims, centroids);
    const upd = this.db.prepare(`UPDATE chunks SET list = ? WHERE id = ?`);
    const a: Ann = { model, ivf, trainedCount: n, perGroup: new Map() };
    const code = new Int8Array(ivf.stride);
    this.db.transaction(() => {
      for (const r of this.db.prepare(`SELECT id, store_id, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).all(model) as Row[]) {
        const v = blobVector(r.vector as Buffer);
        if (v.length !== dims) continue;
        const unit = normalize(v);
        const list = ivf.listOf(unit);
        upd.run(list, r.id);
        ivf.quantize(unit, code);
        this.addCode(a, r.id as number, this.group(r.store_id as string), list, code);
      }
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

/** Int8 scores below the topK-th by more than this are not re-scored (see `search`). */
const RESCORE_MARGIN = 0.02;
/** Candidates re-scored a statement (`RESCORE_BATCH` placeholders at most). */
const RESCORE_BATCH = 512;

/** A model's persisted lists as `readIvf` loaded them: its index, filled. */
export interface PersistedLists {
  ivf: IvfIndex;
  /** rows of `ivf_delta` per list */
  deltaCounts: Array<[number, number]>;
}

/** The IVF state of a chunk index file: store groups, and per model its centroids and persisted lists, loaded (null: none, an older file's). */
export interface IvfRead {
  groups: Array<[string, number]>;
  models: Array<{ model: string; dims: number; centroids: Float32Array; trainedCount: number; lists: PersistedLists | null }>;
}

/**
 * Reads the IVF state of the file and loads each model's persisted lists into an index that `make`
 * gives (call in one read transaction, for a consistent snapshot). Only reads: it runs on the index's
 * connection, or on a read-only one in a worker thread (ivf.prefetch.ts).
 */
export function readIvf(db: Database.Database, make: (dims: number, centroids: Float32Array) => IvfIndex): IvfRead {
  const groups = db.prepare(`SELECT store_id, grp FROM ivf_stores ORDER BY grp`).raw().all() as Array<[string, number]>;
  const models: IvfRead['models'] = [];
  for (const c of db.prepare(`SELECT * FROM ivf_centroids`).all() as Row[]) {
    const dims = c.dims as number;
    const centroids = blobVector(c.centroids as Buffer);
    models.push({ model: c.model as string, dims, centroids, trainedCount: c.trained_count as number, lists: readLists(db, c.model as string, () => make(dims, centroids)) });
  }
  return { groups, models };
}

/**
 * A model's lists from `ivf_lists` and `ivf_delta`, loaded into the index `make` gives; null when the
 * file has none (an older release's). A (list, id) is its delta row where it has one, else its base: an
 * id that left a list has a tombstone there until that list is rewritten, so the bases are read without
 * their tombstoned ids (an id can be in two bases: the one it left and the one it went to), and the
 * delta's codes are added after them. Every list is sized at once for its base and its delta's codes
 * (one arena, grown once), and each base is copied into it as its row is read: a start holds one row's
 * blobs at a time, not every list twice (at 1M vectors, 384 MB of codes read into buffers of their own
 * and then copied: twice the memory, and twice the pages first touched).
 */
function readLists(db: Database.Database, model: string, make: () => IvfIndex): PersistedLists | null {
  const counts = new Map<number, number>();
  const tombs = new Map<number, Set<number>>();
  const adds: Array<[number, number, number, Buffer]> = [];
  for (const row of db.prepare(`SELECT list, id, grp, code FROM ivf_delta WHERE model = ?`).raw().iterate(model) as IterableIterator<[number, number, number | null, Buffer | null]>) {
    const [list, id, grp, code] = row;
    counts.set(list, (counts.get(list) ?? 0) + 1);
    if (code === null || grp === null) {
      let t = tombs.get(list);
      if (!t) tombs.set(list, (t = new Set()));
      t.add(id);
    } else adds.push([list, id, grp, code]);
  }
  const sizes = db.prepare(`SELECT list, size FROM ivf_lists WHERE model = ?`).raw().all(model) as Array<[number, number]>;
  if (!sizes.length) return null;
  const ivf = make();
  const stride = ivf.stride;
  // the delta's codes (of this model's width) go after the bases: room for them in their lists
  const fit = adds.filter(([, , , code]) => code.length === stride);
  const room = new Map<number, number>();
  for (const [list] of fit) room.set(list, (room.get(list) ?? 0) + 1);
  for (const list of [...sizes.map(([l]) => l), ...room.keys()]) if (list >= ivf.nlist) throw new Error(`IVF of ${model}: persisted list ${list} has no centroid`);
  ivf.reserve(sizes.map(([list, size]) => (size + (room.get(list) ?? 0) ? IvfIndex.capacityFor(size + (room.get(list) ?? 0)) : 0)));
  // a blob's bytes as 32-bit ints, in place where aligned (better-sqlite3 gives each blob a buffer of its own), else copied
  const int32s = (b: Buffer) => (b.byteOffset % 4 ? new Int32Array(new Uint8Array(b).buffer, 0, b.byteLength >> 2) : new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2));
  for (const [list, idBlob, groupBlob, codeBlob] of db.prepare(`SELECT list, ids, groups, codes FROM ivf_lists WHERE model = ?`).raw().iterate(model) as IterableIterator<
    [number, Buffer, Buffer, Buffer]
  >) {
    let ids = int32s(idBlob);
    let groups = int32s(groupBlob);
    let codes: Uint8Array = codeBlob;
    const t = tombs.get(list);
    if (t?.size) {
      const keep = [...ids.keys()].filter((j) => !t.has(ids[j]));
      const k = new Uint8Array(keep.length * stride);
      keep.forEach((j, i) => k.set(codes.subarray(j * stride, (j + 1) * stride), i * stride));
      const before = ids;
      ids = Int32Array.from(keep, (j) => before[j]);
      groups = Int32Array.from(keep, (j) => groups[j]);
      codes = k;
    }
    ivf.loadList(list, ids, groups, codes, room.get(list) ?? 0);
  }
  for (const [list, id, grp, code] of fit) ivf.addCode(id, grp, list, code);
  return { ivf, deltaCounts: [...counts] };
}

/** The IVF indexes of the file built (in shared memory) by a thread other than the one that uses them: `IvfCatalogue.load` takes them over without a copy. */
export interface IvfBuilt {
  groups: Array<[string, number]>;
  models: Array<{
    model: string;
    dims: number;
    centroids: Float32Array;
    trainedCount: number;
    /** null: the file has no persisted lists for the model (an older release's): the catalogue rebuilds them from the vectors */
    built: { ivf: IvfIndexState; deltaCounts: Array<[number, number]>; perGroup: Array<[number, number]> } | null;
  }>;
}

/** Reads the file's IVF state (`readIvf`, in one read transaction) and builds each model's index in shared memory, for another thread (ivf.prefetch.ts). */
export function buildIvf(db: Database.Database): { built: IvfBuilt; transfer: ArrayBuffer[] } {
  const r = db.transaction(() => readIvf(db, (dims, centroids) => new IvfIndex(dims, centroids, true)))();
  const transfer: ArrayBuffer[] = [];
  const models = r.models.map((m) => {
    if (!m.lists) return { model: m.model, dims: m.dims, centroids: m.centroids, trainedCount: m.trainedCount, built: null };
    const ivf = m.lists.ivf;
    const state = ivf.state();
    transfer.push(...IvfIndex.transferables(state));
    return { model: m.model, dims: m.dims, centroids: m.centroids, trainedCount: m.trainedCount, built: { ivf: state, deltaCounts: m.lists.deltaCounts, perGroup: [...ivf.groupCounts()] } };
  });
  return { built: { groups: r.groups, models }, transfer };
}

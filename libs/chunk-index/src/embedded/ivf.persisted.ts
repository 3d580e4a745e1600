import Database from 'better-sqlite3';
import { blobVector, IvfIndex, IvfIndexState } from './ivf';
import { Row } from './sqlite.schema';

/**
 * The IVF lists as the chunk index file persists them (ivf_centroids, ivf_lists: a base per list,
 * ivf_delta: the vectors added or removed since; ivf_stores: the store groups): read at start, here or
 * in a worker thread (ivf.prefetch.ts), and a list's base rewritten (IvfCatalogue).
 */

/** A model's persisted lists as `readIvf` loaded them: its index, filled. */
export interface PersistedLists {
  ivf: IvfIndex;
  /** rows of `ivf_delta` per list */
  deltaCounts: Array<[number, number]>;
}

/** The IVF state of a chunk index file: store groups, and per model its centroids and persisted lists, loaded (null: none, an older file's). */
export interface IvfRead {
  groups: Array<[string, number]>;
  models: Array<{
    model: string;
    dims: number;
    centroids: Float32Array;
    trainedCount: number;
    lists: PersistedLists | null;
  }>;
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
    models.push({
      model: c.model as string,
      dims,
      centroids,
      trainedCount: c.trained_count as number,
      lists: readLists(db, c.model as string, () => make(dims, centroids)),
    });
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
  for (const row of db
    .prepare(`SELECT list, id, grp, code FROM ivf_delta WHERE model = ?`)
    .raw()
    .iterate(model) as IterableIterator<[number, number, number | null, Buffer | null]>) {
    const [list, id, grp, code] = row;
    counts.set(list, (counts.get(list) ?? 0) + 1);
    if (code === null || grp === null) {
      let t = tombs.get(list);
      if (!t) tombs.set(list, (t = new Set()));
      t.add(id);
    } else adds.push([list, id, grp, code]);
  }
  const sizes = db.prepare(`SELECT list, size FROM ivf_lists WHERE model = ?`).raw().all(model) as Array<
    [number, number]
  >;
  if (!sizes.length) return null;
  const ivf = make();
  const stride = ivf.stride;
  // the delta's codes (of this model's width) go after the bases: room for them in their lists
  const fit = adds.filter(([, , , code]) => code.length === stride);
  const room = new Map<number, number>();
  for (const [list] of fit) room.set(list, (room.get(list) ?? 0) + 1);
  for (const list of [...sizes.map(([l]) => l), ...room.keys()])
    if (list >= ivf.nlist) throw new Error(`IVF of ${model}: persisted list ${list} has no centroid`);
  ivf.reserve(
    sizes.map(([list, size]) =>
      size + (room.get(list) ?? 0) ? IvfIndex.capacityFor(size + (room.get(list) ?? 0)) : 0,
    ),
  );
  // a blob's bytes as 32-bit ints, in place where aligned (better-sqlite3 gives each blob a buffer of its own), else copied
  const int32s = (b: Buffer) =>
    b.byteOffset % 4
      ? new Int32Array(new Uint8Array(b).buffer, 0, b.byteLength >> 2)
      : new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
  for (const [list, idBlob, groupBlob, codeBlob] of db
    .prepare(`SELECT list, ids, groups, codes FROM ivf_lists WHERE model = ?`)
    .raw()
    .iterate(model) as IterableIterator<[number, Buffer, Buffer, Buffer]>) {
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

/** Inside a transaction: one list's in-memory entries as its new base, its delta rows deleted (folded in). */
export function writeList(db: Database.Database, model: string, list: number, ivf: IvfIndex): void {
  const { ids, groups, codes } = ivf.exportList(list);
  const buf = (x: Int32Array | Uint8Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  db.prepare(
    `INSERT INTO ivf_lists (model, list, size, ids, groups, codes) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model, list) DO UPDATE SET size = excluded.size, ids = excluded.ids, groups = excluded.groups, codes = excluded.codes`,
  ).run(model, list, ids.length, buf(ids), buf(groups), buf(codes));
  db.prepare(`DELETE FROM ivf_delta WHERE model = ? AND list = ?`).run(model, list);
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
    if (!m.lists)
      return { model: m.model, dims: m.dims, centroids: m.centroids, trainedCount: m.trainedCount, built: null };
    const ivf = m.lists.ivf;
    const state = ivf.state();
    transfer.push(...IvfIndex.transferables(state));
    return {
      model: m.model,
      dims: m.dims,
      centroids: m.centroids,
      trainedCount: m.trainedCount,
      built: { ivf: state, deltaCounts: m.lists.deltaCounts, perGroup: [...ivf.groupCounts()] },
    };
  });
  return { built: { groups: r.groups, models }, transfer };
}

/**
 * A model's stored vectors of the IVF's dimensions, read for a file without persisted lists: each with
 * its store and list (as stored, or else chosen by `ivf`: those rows are in `unassigned`, [list, id]).
 */
export function readVectors(
  db: Database.Database,
  model: string,
  ivf: IvfIndex,
): { entries: Array<[number, string, number, Float32Array]>; unassigned: Array<[number, number]> } {
  const unassigned: Array<[number, number]> = [];
  // raw rows and no per-row copies: this reads every vector of the model
  const rows = db.prepare(`SELECT id, store_id, list, vector FROM chunks WHERE model = ? AND vector IS NOT NULL`).raw();
  const entries: Array<[number, string, number, Float32Array]> = [];
  for (const [id, storeId, stored, blob] of rows.iterate(model) as IterableIterator<
    [number, string, number | null, Buffer]
  >) {
    const v =
      blob.byteOffset % 4 === 0
        ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2)
        : blobVector(blob);
    if (v.length !== ivf.dims) continue;
    let list = stored;
    if (list === null) unassigned.push([(list = ivf.listOf(v)), id]); // a list choice needs no normalising
    entries.push([id, storeId, list, v]);
  }
  return { entries, unassigned };
}

import { CodeArena, CodeArenaState, Int8Matrix } from './int8-kernel';
import { TopK } from './top-k';

/**
 * An inverted-file (IVF) index over int8-quantised unit vectors, for the embedded chunk index's dense
 * search on large stores: k-means centroids split the vectors into lists; a query scans only the
 * `probes` lists nearest to it (int8 dot products, WebAssembly SIMD: int8-kernel.ts), and the caller
 * re-scores the best candidates with the exact float vectors. No native code, nothing to download.
 */

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / n;
  return out;
}

/** Cosine of a unit query vector and any vector of its length. */
export function cosine(qn: Float32Array, v: Float32Array): number {
  let dot = 0;
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    dot += qn[i] * v[i];
    n += v[i] * v[i];
  }
  return n ? dot / Math.sqrt(n) : 0;
}

/** A stored vector (SQLite BLOB of float32s) as a copy, aligned whatever the blob's offset. */
export function blobVector(b: Buffer): Float32Array {
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** A stored vector's cosine with a unit query, read in place where the blob is aligned (no copy: a query re-scores its candidates so). */
export function blobCosine(qn: Float32Array, b: Buffer): number {
  return cosine(
    qn,
    b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2) : blobVector(b),
  );
}

/** Spherical k-means on unit vectors (deterministic seeding), `iterations` rounds. */
export function kmeans(sample: Float32Array[], nlist: number, iterations = 6): Float32Array {
  const dims = sample[0].length;
  const k = Math.min(nlist, sample.length);
  const centroids = new Float32Array(k * dims);
  // seed with evenly spaced samples (the sample itself is drawn without order bias)
  for (let c = 0; c < k; c++) centroids.set(sample[Math.floor((c * sample.length) / k)], c * dims);
  const assign = new Int32Array(sample.length);
  for (let it = 0; it < iterations; it++) {
    const m = new Int8Matrix(centroids, dims);
    for (let i = 0; i < sample.length; i++) assign[i] = m.nearest(sample[i]);
    const sums = new Float64Array(k * dims);
    const counts = new Int32Array(k);
    for (let i = 0; i < sample.length; i++) {
      const c = assign[i];
      counts[c]++;
      const v = sample[i];
      for (let d = 0; d < dims; d++) sums[c * dims + d] += v[d];
    }
    for (let c = 0; c < k; c++) {
      if (!counts[c]) {
        // an empty list takes a random point of the largest one
        const donor = sample[(c * 7919 + it * 104729) % sample.length];
        centroids.set(donor, c * dims);
        continue;
      }
      let n = 0;
      for (let d = 0; d < dims; d++) n += sums[c * dims + d] ** 2;
      n = Math.sqrt(n) || 1;
      for (let d = 0; d < dims; d++) centroids[c * dims + d] = sums[c * dims + d] / n;
    }
  }
  return centroids;
}

/** One list's vectors: ids and store groups in JS arrays, int8 codes in a block of a code arena. */
class List {
  ids = new Int32Array(0);
  groups = new Int32Array(0);
  size = 0;
  arena: CodeArena | null = null;
  /** byte offset of the codes in the arena */
  at = 0;
  get capacity(): number {
    return this.ids.length;
  }
}
/** How large one arena of codes may grow (more arenas are opened beyond it). */
const ARENA_BYTES = 1 << 30;

/** The lists of one embedding model. `group` is a small integer per store (the caller's mapping). */
export class IvfIndex {
  private readonly lists: List[];
  /** The list of each live id, plus one (0: none), indexed by id; a replaced or removed id's old slot gets group -1 (skipped). */
  private where: Int32Array = new Int32Array(1024);
  private live = 0;
  private readonly arenas: CodeArena[] = [];
  /** the centroids as int8 codes, to choose lists */
  private readonly coarse: Int8Matrix;
  /** bytes per code: the dimensions rounded up to 16 */
  readonly stride: number;

  /** `shared`: codes in shared memory, so that the index can be built in one thread and used in another (`state`, `IvfIndex.adopt`). */
  constructor(
    readonly dims: number,
    private readonly centroids: Float32Array,
    private readonly shared = false,
  ) {
    this.lists = Array.from({ length: centroids.length / dims }, () => new List());
    this.stride = (dims + 15) & ~15;
    this.coarse = new Int8Matrix(centroids, dims);
  }

  /** The index as another thread takes it over (`IvfIndex.adopt`): its codes stay where they are (shared memory), the rest are plain arrays. */
  state(): IvfIndexState {
    return {
      dims: this.dims,
      centroids: this.centroids,
      lists: this.lists.map((l) => ({
        ids: l.ids,
        groups: l.groups,
        size: l.size,
        arena: l.arena ? this.arenas.indexOf(l.arena) : -1,
        at: l.at,
      })),
      where: this.where,
      live: this.live,
      arenas: this.arenas.map((a) => a.state()),
    };
  }

  /** The index `state` describes (built by another thread, with shared arenas): nothing is copied. */
  static adopt(state: IvfIndexState): IvfIndex {
    const ivf = new IvfIndex(state.dims, state.centroids, true);
    ivf.arenas.push(...state.arenas.map((a) => CodeArena.adopt(a)));
    state.lists.forEach((s, i) =>
      Object.assign(ivf.lists[i], {
        ids: s.ids,
        groups: s.groups,
        size: s.size,
        arena: s.arena >= 0 ? ivf.arenas[s.arena] : null,
        at: s.at,
      }),
    );
    ivf.where = state.where;
    ivf.live = state.live;
    return ivf;
  }

  /** The ArrayBuffers of a `state`, to transfer to another thread rather than copy (the codes' memory is shared, not among them). */
  static transferables(state: IvfIndexState): ArrayBuffer[] {
    const out = new Set<ArrayBuffer>([state.where.buffer as ArrayBuffer]);
    for (const l of state.lists)
      for (const x of [l.ids, l.groups])
        if (x.byteLength === x.buffer.byteLength && x.buffer instanceof ArrayBuffer) out.add(x.buffer);
    return [...out];
  }

  get size(): number {
    return this.live;
  }

  /** Lists (centroids). */
  get nlist(): number {
    return this.lists.length;
  }

  /** Slots of a list, removed ones included (what a persisted copy would shed). */
  slots(list: number): number {
    return this.lists[list].size;
  }

  private listOfId(id: number): number {
    return id < this.where.length ? this.where[id] - 1 : -1;
  }

  private setWhere(id: number, list: number): void {
    if (id >= this.where.length) {
      const grown = new Int32Array(Math.max(id + 1, this.where.length * 2));
      grown.set(this.where);
      this.where = grown;
    }
    if (!this.where[id]) this.live++;
    this.where[id] = list + 1;
  }

  /** `vector`'s direction as an int8 code of `stride` bytes (any length; it is normalised), written at `at` of `out`. */
  quantize(vector: Float32Array, out: Int8Array, at = 0): void {
    let n = 0;
    for (let d = 0; d < this.dims; d++) n += vector[d] * vector[d];
    const k = 127 / (Math.sqrt(n) || 1);
    for (let d = 0; d < this.dims; d++) out[at + d] = Math.max(-127, Math.min(127, Math.round(vector[d] * k)));
    if (this.dims < this.stride) out.fill(0, at + this.dims, at + this.stride);
  }

  /**
   * Fills an empty list from a persisted copy (`exportList`): `ids` and `groups` as int32s, `codes`
   * `stride` bytes each. Capacity stays a power-of-two multiple of 64, as lists grow.
   */
  loadList(list: number, ids: Int32Array, groups: Int32Array, codes: Uint8Array, room = 0): void {
    const l = this.lists[list];
    if (l.size) throw new Error(`IVF list ${list} is not empty`);
    const n = ids.length;
    if (groups.length !== n || codes.length !== n * this.stride)
      throw new Error(`IVF list ${list}: persisted copy is inconsistent`);
    if (!n) return;
    const capacity = IvfIndex.capacityFor(n + room);
    const { arena, at } = this.place(capacity);
    arena.v.i8.set(new Int8Array(codes.buffer, codes.byteOffset, codes.byteLength), at);
    const lids = new Int32Array(capacity);
    lids.set(ids);
    const lgroups = new Int32Array(capacity);
    lgroups.set(groups);
    Object.assign(l, { ids: lids, groups: lgroups, arena, at, size: n });
    for (let j = 0; j < n; j++) this.setWhere(ids[j], list);
  }

  /** The capacity a list of `n` entries gets: a power-of-two multiple of 64, as lists grow. */
  static capacityFor(n: number): number {
    let capacity = 64;
    while (capacity < n) capacity *= 2;
    return capacity;
  }

  /** Before loading lists of these capacities: the first arena grown once to hold them (up to its bound). */
  reserve(capacities: number[]): void {
    const bytes = capacities.reduce((s, c) => s + c * this.stride, 0);
    if (!bytes || this.arenas.length) return;
    const arena = new CodeArena(this.stride, ARENA_BYTES, this.shared);
    arena.reserve(bytes + capacities.length * 16); // at most the arena's bound: the rest grows as it comes
    this.arenas.push(arena);
  }

  /** A list's live entries (removed slots shed), as `loadList` takes them back. */
  exportList(list: number): { ids: Int32Array; groups: Int32Array; codes: Uint8Array } {
    const l = this.lists[list];
    let n = 0;
    for (let j = 0; j < l.size; j++) if (l.groups[j] >= 0) n++;
    const ids = new Int32Array(n);
    const groups = new Int32Array(n);
    const codes = new Uint8Array(n * this.stride);
    if (!l.arena) return { ids, groups, codes };
    const src = new Uint8Array(l.arena.v.i8.buffer);
    let k = 0;
    for (let j = 0; j < l.size; j++) {
      if (l.groups[j] < 0) continue;
      ids[k] = l.ids[j];
      groups[k] = l.groups[j];
      codes.set(src.subarray(l.at + j * this.stride, l.at + (j + 1) * this.stride), k * this.stride);
      k++;
    }
    return { ids, groups, codes };
  }

  /** Vectors per store group in the lists (live entries). */
  groupCounts(): Map<number, number> {
    const out = new Map<number, number>();
    for (const l of this.lists)
      for (let j = 0; j < l.size; j++) if (l.groups[j] >= 0) out.set(l.groups[j], (out.get(l.groups[j]) ?? 0) + 1);
    return out;
  }

  listOf(unit: Float32Array): number {
    return this.coarse.nearest(unit);
  }

  /** Room for `capacity` codes in some arena (a new arena when none can hold them). */
  private place(capacity: number): { arena: CodeArena; at: number } {
    const bytes = capacity * this.stride;
    for (const arena of this.arenas) {
      const at = arena.alloc(bytes);
      if (at !== null) return { arena, at };
    }
    const arena = new CodeArena(this.stride, Math.max(ARENA_BYTES, bytes + (1 << 20)), this.shared);
    this.arenas.push(arena);
    const at = arena.alloc(bytes);
    if (at === null) throw new Error(`cannot allocate ${bytes} bytes of IVF codes`);
    return { arena, at };
  }

  private grow(l: List): void {
    const capacity = Math.max(64, l.capacity * 2);
    const { arena, at } = this.place(capacity);
    if (l.arena) {
      const bytes = l.size * this.stride;
      arena.v.i8.set(l.arena.v.i8.subarray(l.at, l.at + bytes), at);
      l.arena.release(l.at, l.capacity * this.stride);
    }
    const ids = new Int32Array(capacity);
    ids.set(l.ids);
    const groups = new Int32Array(capacity);
    groups.set(l.groups);
    Object.assign(l, { ids, groups, arena, at });
  }

  /** Adds a vector (any length; it is normalised) to a list, quantised straight into the list's codes. */
  add(id: number, group: number, list: number, vector: Float32Array): void {
    const { l, at } = this.slot(id, group, list);
    this.quantize(vector, l.arena!.v.i8, at);
  }

  /** Adds an id with its int8 code (`stride` bytes, as `quantize` writes it) to a list. */
  addCode(id: number, group: number, list: number, code: Int8Array | Uint8Array): void {
    const { l, at } = this.slot(id, group, list);
    l.arena!.v.i8.set(
      code instanceof Int8Array ? code : new Int8Array(code.buffer, code.byteOffset, code.byteLength),
      at,
    );
  }

  /** A new slot in `list` for `id` (its old one, anywhere, removed): answers the list and the code's offset. */
  private slot(id: number, group: number, list: number): { l: List; at: number } {
    this.remove(id);
    const l = this.lists[list];
    if (l.size === l.capacity) this.grow(l);
    l.ids[l.size] = id;
    l.groups[l.size] = group;
    const at = l.at + l.size * this.stride;
    l.size++;
    this.setWhere(id, list);
    return { l, at };
  }

  /** Removes an id if it is in `list`; answers the group it was in, or -1. */
  removeFrom(id: number, list: number): number {
    return this.listOfId(id) === list ? this.remove(id) : -1;
  }

  /** Removes an id; answers the group it was in, or -1. */
  remove(id: number): number {
    const list = this.listOfId(id);
    if (list < 0) return -1;
    this.where[id] = 0;
    this.live--;
    const l = this.lists[list];
    for (let j = l.size - 1; j >= 0; j--) {
      if (l.ids[j] === id && l.groups[j] >= 0) {
        const g = l.groups[j];
        l.groups[j] = -1;
        return g;
      }
    }
    return -1;
  }

  /** The `k` best ids by int8 dot product among the `probes` nearest lists, restricted to `groups`. */
  search(unit: Float32Array, probes: number, groups: Uint8Array, k: number): Array<{ id: number; score: number }> {
    const order = new TopK(Math.min(probes, this.lists.length));
    const near = this.coarse.scores(unit);
    for (let c = 0; c < near.length; c++) order.push(c, near[c]);
    const top = new TopK(k);
    const scales = new Map<CodeArena, number>();
    const batch = CodeArena.SCAN_BATCH;
    for (const { id: c } of order.sorted()) {
      const list = this.lists[c];
      const arena = list.arena;
      if (!arena || !list.size) continue;
      let s = scales.get(arena);
      if (s === undefined) scales.set(arena, (s = arena.setQuery(unit)));
      const gs = list.groups;
      for (let from = 0; from < list.size; from += batch) {
        const n = Math.min(batch, list.size - from);
        arena.scan(arena.query, list.at + from * this.stride, n, this.stride, arena.out);
        const out = arena.v.i32;
        const o = arena.out >> 2;
        for (let j = 0; j < n; j++) {
          const score = out[o + j] / s;
          if (score > top.threshold) {
            const g = gs[from + j];
            if (g >= 0 && groups[g]) top.push(list.ids[from + j], score);
          }
        }
      }
    }
    return top.sorted().map((x) => ({ id: x.id, score: x.score / 127 }));
  }
}

/** An `IvfIndex` handed to another thread: its lists' arrays, and its shared code arenas. */
export interface IvfIndexState {
  dims: number;
  centroids: Float32Array;
  lists: Array<{ ids: Int32Array; groups: Int32Array; size: number; arena: number; at: number }>;
  where: Int32Array;
  live: number;
  arenas: CodeArenaState[];
}

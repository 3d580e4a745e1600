/**
 * An inverted-file (IVF) index over int8-quantised unit vectors, for the embedded chunk index's dense
 * search on large stores: k-means centroids split the vectors into lists; a query scans only the
 * `probes` lists nearest to it (int8 dot products), and the caller re-scores the best candidates with
 * the exact float vectors. Pure TypeScript: no native code, nothing to download.
 */

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / n;
  return out;
}

/** A unit vector as int8 (x·127, rounded). */
export function quantize(unit: Float32Array): Int8Array {
  const out = new Int8Array(unit.length);
  for (let i = 0; i < unit.length; i++) out[i] = Math.max(-127, Math.min(127, Math.round(unit[i] * 127)));
  return out;
}

function dot(a: Float32Array, aOff: number, b: Float32Array, dims: number): number {
  let s = 0;
  for (let i = 0; i < dims; i++) s += a[aOff + i] * b[i];
  return s;
}

/** Index of the nearest centroid (largest dot product with a unit vector). */
export function nearest(centroids: Float32Array, dims: number, v: Float32Array): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let c = 0; c * dims < centroids.length; c++) {
    const s = dot(centroids, c * dims, v, dims);
    if (s > bestScore) [best, bestScore] = [c, s];
  }
  return best;
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
    for (let i = 0; i < sample.length; i++) assign[i] = nearest(centroids, dims, sample[i]);
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

class List {
  ids = new Int32Array(64);
  groups = new Int32Array(64);
  codes: Int8Array;
  size = 0;
  constructor(private readonly dims: number) {
    this.codes = new Int8Array(64 * dims);
  }
  add(id: number, group: number, code: Int8Array): void {
    if (this.size === this.ids.length) {
      const grow = <T extends Int32Array | Int8Array>(a: T, n: number): T => {
        const b = new (a.constructor as { new (n: number): T })(n);
        b.set(a);
        return b;
      };
      this.ids = grow(this.ids, this.ids.length * 2);
      this.groups = grow(this.groups, this.groups.length * 2);
      this.codes = grow(this.codes, this.codes.length * 2);
    }
    this.ids[this.size] = id;
    this.groups[this.size] = group;
    this.codes.set(code, this.size * this.dims);
    this.size++;
  }
}

/** Fixed-capacity min-heap of (score, id): keeps the `k` best. */
export class TopK {
  readonly scores: Float64Array;
  readonly ids: Float64Array;
  size = 0;
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.ids = new Float64Array(k);
  }
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0];
  }
  push(score: number, id: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.scores[p] <= score) break;
        this.scores[i] = this.scores[p];
        this.ids[i] = this.ids[p];
        i = p;
      }
      this.scores[i] = score;
      this.ids[i] = id;
      return;
    }
    if (score <= this.scores[0]) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c = r < this.size && this.scores[r] < this.scores[l] ? r : l;
      if (this.scores[c] >= score) break;
      this.scores[i] = this.scores[c];
      this.ids[i] = this.ids[c];
      i = c;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }
  /** Best first. */
  sorted(): Array<{ id: number; score: number }> {
    const out = Array.from({ length: this.size }, (_, i) => ({ id: this.ids[i], score: this.scores[i] }));
    return out.sort((a, b) => b.score - a.score);
  }
}

/** The lists of one embedding model. `group` is a small integer per store (the caller's mapping). */
export class IvfIndex {
  private readonly lists: List[];
  /** Where each live id sits; a replaced or removed id's old slot gets group -1 (skipped). */
  private readonly where = new Map<number, { list: List; slot: number }>();

  constructor(
    readonly dims: number,
    readonly centroids: Float32Array,
  ) {
    this.lists = Array.from({ length: centroids.length / dims }, () => new List(dims));
  }

  get nlist(): number {
    return this.lists.length;
  }
  get size(): number {
    return this.where.size;
  }

  listOf(unit: Float32Array): number {
    return nearest(this.centroids, this.dims, unit);
  }

  add(id: number, group: number, list: number, code: Int8Array): void {
    this.remove(id);
    const l = this.lists[list];
    l.add(id, group, code);
    this.where.set(id, { list: l, slot: l.size - 1 });
  }

  /** Removes an id; answers the group it was in, or -1. */
  remove(id: number): number {
    const w = this.where.get(id);
    if (!w) return -1;
    const g = w.list.groups[w.slot];
    w.list.groups[w.slot] = -1;
    this.where.delete(id);
    return g;
  }

  /** The `k` best ids by int8 dot product among the `probes` nearest lists, restricted to `groups`. */
  search(unit: Float32Array, probes: number, groups: Uint8Array, k: number): Array<{ id: number; score: number }> {
    const dims = this.dims;
    const order = new TopK(Math.min(probes, this.lists.length));
    for (let c = 0; c < this.lists.length; c++) order.push(dot(this.centroids, c * dims, unit, dims), c);
    const top = new TopK(k);
    for (const { id: c } of order.sorted()) {
      const list = this.lists[c];
      const codes = list.codes;
      const gs = list.groups;
      for (let j = 0; j < list.size; j++) {
        const g = gs[j];
        if (g < 0 || !groups[g]) continue;
        const base = j * dims;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let d = 0;
        for (; d + 4 <= dims; d += 4) {
          s0 += unit[d] * codes[base + d];
          s1 += unit[d + 1] * codes[base + d + 1];
          s2 += unit[d + 2] * codes[base + d + 2];
          s3 += unit[d + 3] * codes[base + d + 3];
        }
        for (; d < dims; d++) s0 += unit[d] * codes[base + d];
        const s = s0 + s1 + s2 + s3;
        if (s > top.threshold) top.push(s, list.ids[j]);
      }
    }
    return top.sorted().map((x) => ({ id: x.id, score: x.score / 127 }));
  }
}

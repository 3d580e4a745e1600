import { seededRandom } from '@larder/kernel/testing/random';
import { ExactCodes } from './exact-codes';
import { normalize } from './ivf';
import { TopK } from './top-k';

/** Unit vectors of `dims` one after another, made by `make(row)`. */
function matrix(n: number, dims: number, make: (row: number) => Float32Array) {
  const units = new Float32Array(n * dims);
  const offsets = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const v = make(r);
    const u = v.some((x) => x !== 0) ? normalize(v) : v;
    units.set(u, r * dims);
    offsets[r] = r * dims;
  }
  return { units, offsets, positions: Int32Array.from({ length: n }, (_, i) => i) };
}

const dot = (q: Float32Array, units: Float32Array, o: number) => {
  let s = 0;
  for (let i = 0; i < q.length; i++) s += q[i] * units[o + i];
  return s;
};

/** The float scan's k best (position, score), and the same through the codes' candidates. */
function both(
  m: ReturnType<typeof matrix>,
  codes: ExactCodes,
  q: Float32Array,
  k: number,
  skip: ((p: number) => boolean) | null = null,
) {
  const full = new TopK(k);
  for (let p = 0; p < m.offsets.length; p++) if (!skip?.(p)) full.push(p, dot(q, m.units, m.offsets[p]));
  const narrowed = new TopK(k);
  const candidates = codes.candidates(q, k, skip);
  for (const p of candidates) narrowed.push(p, dot(q, m.units, m.offsets[p]));
  return { full: full.sorted(), narrowed: narrowed.sorted(), candidates: candidates.length };
}

describe('ExactCodes: int8 codes that narrow an exact scan without changing its answer', () => {
  const gaussian = (r: () => number) => () => {
    const u = Math.max(r(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
  };

  it('answers the float scan exactly for random vectors, and scores again only a few rows', () => {
    const r = seededRandom(11);
    const g = gaussian(r);
    const dims = 512;
    const m = matrix(3000, dims, () => Float32Array.from({ length: dims }, g));
    const codes = ExactCodes.of(m.units, m.offsets, m.positions, dims);
    let candidates = 0;
    for (let t = 0; t < 20; t++) {
      // queries near a stored vector (as real queries are near their answers) and far from all
      const near = m.units.subarray(m.offsets[t * 7], m.offsets[t * 7] + dims);
      const q = normalize(Float32Array.from({ length: dims }, (_, i) => (t % 2 ? near[i] : 0) + g() * 0.05));
      for (const k of [1, 10, 100]) {
        const { full, narrowed, candidates: c } = both(m, codes, q, k);
        expect(narrowed).toEqual(full);
        if (k === 10) candidates += c;
      }
    }
    expect(candidates / 20).toBeLessThan(300);
  });

  it('holds for adversarial rows: duplicates (ties by position), near-uniform, one-hot, zero, tiny dimensions', () => {
    const r = seededRandom(5);
    for (const dims of [3, 17, 64, 1536]) {
      const m = matrix(1200, dims, (row) => {
        if (row % 5 === 0) return Float32Array.from({ length: dims }, (_, i) => (i === 0 ? 1 : 0)); // duplicates
        if (row % 7 === 0) return Float32Array.from({ length: dims }, () => 1 + r() * 1e-4); // near-uniform
        if (row % 11 === 0) return new Float32Array(dims); // zero
        if (row % 13 === 0) return Float32Array.from({ length: dims }, (_, i) => (i === row % dims ? 1 : 0));
        return Float32Array.from({ length: dims }, () => r() - 0.5);
      });
      const codes = ExactCodes.of(m.units, m.offsets, m.positions, dims);
      const queries = [
        Float32Array.from({ length: dims }, (_, i) => (i === 0 ? 1 : 0)),
        normalize(Float32Array.from({ length: dims }, () => 1)),
        normalize(Float32Array.from({ length: dims }, () => r() - 0.5)),
        new Float32Array(dims),
      ];
      for (const q of queries)
        for (const k of [1, 10, 50]) {
          const { full, narrowed } = both(m, codes, q, k);
          expect(narrowed).toEqual(full);
        }
    }
  });

  it('always scores again a row that is not finite, so it cannot hide the others', () => {
    const r = seededRandom(3);
    const dims = 32;
    const m = matrix(1500, dims, () => Float32Array.from({ length: dims }, () => r() - 0.5));
    m.units.fill(NaN, 0, dims); // the first row: what a stored vector holding Infinity becomes
    const codes = ExactCodes.of(m.units, m.offsets, m.positions, dims);
    const q = normalize(Float32Array.from({ length: dims }, () => r() - 0.5));
    const candidates = codes.candidates(q, 10, null);
    expect(candidates).toContain(0);
    const finite = [...m.offsets.keys()]
      .filter((p) => p > 0)
      .map((p) => ({ p, score: dot(q, m.units, m.offsets[p]) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10)
      .map((x) => x.p);
    for (const p of finite) expect(candidates).toContain(p);
  });

  it('leaves out the rows `skip` refuses, and answers every row left when fewer than k are', () => {
    const r = seededRandom(9);
    const dims = 48;
    const m = matrix(2000, dims, () => Float32Array.from({ length: dims }, () => r() - 0.5));
    const codes = ExactCodes.of(m.units, m.offsets, m.positions, dims);
    const q = normalize(Float32Array.from({ length: dims }, () => r() - 0.5));
    const odd = (p: number) => p % 2 === 1;
    const { full, narrowed } = both(m, codes, q, 25, odd);
    expect(narrowed).toEqual(full);
    expect(narrowed.every((x) => x.id % 2 === 0)).toBe(true);
    const fewer = both(m, codes, q, 10, (p) => p >= 4);
    expect(fewer.narrowed.map((x) => x.id).sort()).toEqual([0, 1, 2, 3]);
    expect(fewer.narrowed).toEqual(fewer.full);
  });
});

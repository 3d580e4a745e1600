import { CodeArena } from './int8-kernel';
import { TopK } from './top-k';

/** The largest sum the kernel's int32 lanes hold. */
const I32_MAX = 2 ** 31 - 1;
/** Room for the float scan's own rounding in the bounds (its sums are within ~1e-13 of the exact ones). */
const SLACK = 1e-9;

/**
 * The int8 codes of an exact scan's unit vectors of one dimension, each vector scaled to its own
 * range (127 over its largest component), with what bounds each code's error. The SIMD kernel (the
 * IVF's, int8-kernel.ts) scores every row at once; a row's cosine lies within its code's bound of
 * that score, so only the rows whose upper bound reaches the k-th best lower bound can be among the
 * k best: `candidates` answers those, and the caller scores them again in floats. The answer is the
 * float scan's, exactly, at a fraction of its cost.
 */
export class ExactCodes {
  private constructor(
    /** Each row's scan position, ascending (-1: a row since removed, never a candidate). */
    readonly positions: Int32Array,
    readonly dims: number,
    /** Per row: its code's scale (127 over its largest component) and its L1 norm. */
    private readonly scales: Float64Array,
    private readonly l1: Float64Array,
    private readonly arena: CodeArena,
    private readonly at: number,
    private readonly out: number,
  ) {}

  /** The codes of the unit vectors at `positions` (their offsets in `units`) of `dims` dimensions. */
  static of(units: Float32Array, offsets: Int32Array, positions: Int32Array, dims: number): ExactCodes {
    const n = positions.length;
    const stride = (dims + 15) & ~15;
    const scales = new Float64Array(n);
    const l1s = new Float64Array(n);
    const arena = new CodeArena(stride, Math.max(1 << 24, n * (stride + 4) + (1 << 20)));
    const at = arena.alloc(n * stride)!;
    const out = arena.alloc(n * 4)!;
    const i8 = arena.v.i8;
    for (let r = 0; r < n; r++) {
      const o = offsets[positions[r]];
      let max = 0;
      let l1 = 0;
      for (let d = 0; d < dims; d++) {
        const a = Math.abs(units[o + d]);
        l1 += a;
        if (a > max) max = a;
      }
      // |u·scale| ≤ 127: every code fits
      const scale = max ? 127 / max : 1;
      scales[r] = scale;
      l1s[r] = l1;
      const base = at + r * stride;
      for (let d = 0; d < dims; d++) i8[base + d] = Math.round(units[o + d] * scale);
    }
    return new ExactCodes(positions, dims, scales, l1s, arena, at, out);
  }

  /** The same codes for rows now at other positions (-1: removed). */
  remapped(positions: Int32Array): ExactCodes {
    return new ExactCodes(positions, this.dims, this.scales, this.l1, this.arena, this.at, this.out);
  }

  /** What the codes hold in memory. */
  get bytes(): number {
    return (
      this.arena.memory.buffer.byteLength + this.scales.byteLength + this.l1.byteLength + this.positions.byteLength
    );
  }

  /**
   * The positions (ascending) of the rows that may be among the `k` best for the unit query `qv`,
   * those `skip` refuses left out: every row whose cosine can reach the k-th best lower bound.
   */
  candidates(qv: Float32Array, k: number, skip: ((position: number) => boolean) | null): number[] {
    const n = this.positions.length;
    const d = this.dims;
    let max = 0;
    let ql1 = 0;
    for (let i = 0; i < d; i++) {
      const a = Math.abs(qv[i]);
      ql1 += a;
      if (a > max) max = a;
    }
    // the query as int16, scaled as far as int16 and the kernel's int32 sums allow
    const qs = max ? Math.min(32767 / max, (I32_MAX / 127 - d) / ql1) : 1;
    const { i16, i32 } = this.arena.v;
    const qBase = this.arena.query >> 1;
    for (let i = 0; i < this.arena.stride; i++) i16[qBase + i] = i < d ? Math.round(qv[i] * qs) : 0;
    this.arena.scan(this.arena.query, this.at, n, this.arena.stride, this.out);
    const scores = i32.subarray(this.out >> 2, (this.out >> 2) + n);
    // |S/(qs·vs) − q·u| ≤ (qs·|q|₁/2 + vs·|u|₁/2 + d/4) / (qs·vs): each rounding is at most a half
    const upper = new Float64Array(n);
    const lower = new TopK(k);
    const fixed = qs * ql1 * 0.5 + d * 0.25;
    for (let r = 0; r < n; r++) {
      const p = this.positions[r];
      if (p < 0 || skip?.(p)) {
        upper[r] = -Infinity;
        continue;
      }
      const vs = this.scales[r];
      const denominator = qs * vs;
      const approx = scores[r] / denominator;
      const err = (fixed + vs * this.l1[r] * 0.5) / denominator + SLACK;
      // a vector that is not finite has no bound: it is always scored again, as the float scan scores it
      if (!Number.isFinite(approx - err)) {
        upper[r] = Infinity;
        continue;
      }
      upper[r] = approx + err;
      lower.push(r, approx - err);
    }
    const floor = lower.threshold;
    const out: number[] = [];
    for (let r = 0; r < n; r++) if (upper[r] >= floor && upper[r] > -Infinity) out.push(this.positions[r]);
    return out;
  }
}

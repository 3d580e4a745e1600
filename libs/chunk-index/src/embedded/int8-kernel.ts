/**
 * The dense index's inner loop: dot products of one int16 query with many int8 codes, as a small
 * WebAssembly SIMD function (i32x4.dot_i16x8_s: 16 dimensions in a handful of instructions), over
 * codes kept in WebAssembly memory. The module is assembled here from its bytes (no toolchain, no
 * download; int8-kernel.wat is its listing as text, which int8-kernel.wat.spec.ts checks); where WebAssembly SIMD is unavailable, a plain TypeScript loop over the same memory
 * gives the same integers.
 *
 * Layout: each code is `stride` bytes (the dimensions rounded up to 16, zero padded); the query is
 * `stride` int16 values. `scan(query, codes, n, stride, out)` writes n int32 scores at `out`.
 * Exact integer arithmetic: with |query| ≤ 32767 and |code| ≤ 127 over unit vectors, no sum can
 * come near 2^31.
 */

/** The part of the WebAssembly JS API used here (the project's type libraries do not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const str = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];

// opcodes
const BLOCK = 0x02,
  LOOP = 0x03,
  BR = 0x0c,
  BR_IF = 0x0d,
  END = 0x0b,
  VOID = 0x40;
const GET = 0x20,
  SET = 0x21,
  I32_CONST = 0x41,
  I32_ADD = 0x6a,
  I32_SHL = 0x74,
  I32_GE_U = 0x4f,
  I32_STORE = 0x36;
const simd = (op: number) => [0xfd, ...uleb(op)];
const V128_LOAD = (offset: number) => [...simd(0x00), 0x00, ...uleb(offset)];
const V128_ZERO = [...simd(0x0c), ...new Array<number>(16).fill(0)];
const EXTEND_LOW_I8_S = simd(0x87);
const EXTEND_HIGH_I8_S = simd(0x88);
const I32X4_ADD = simd(0xae);
const I32X4_DOT_I16 = simd(0xba);
const LANE = (i: number) => [...simd(0x1b), i];

// locals: params q=0 codes=1 n=2 stride=3 out=4; i=5 d=6 qp=7 (i32); acc=8 c=9 (v128)
const [Q, CODES, N, STRIDE, OUT, I, D, QP, ACC, C] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** The function's body: its locals, then its instructions, one a line (int8-kernel.wat lists them as text; the spec checks they agree). */
// prettier-ignore
const body = [
  2, 3, 0x7f, 2, 0x7b, // locals: 3 × i32, 2 × v128
  BLOCK, VOID,
  LOOP, VOID, // for each code i
  GET, I,
  GET, N,
  I32_GE_U,
  BR_IF, 1,
  ...V128_ZERO,
  SET, ACC,
  I32_CONST, 0,
  SET, D,
  GET, Q,
  SET, QP,
  BLOCK, VOID,
  LOOP, VOID, // for each 16 dimensions d
  GET, D,
  GET, STRIDE,
  I32_GE_U,
  BR_IF, 1,
  GET, CODES,
  GET, D,
  I32_ADD,
  ...V128_LOAD(0), // 16 int8 of the code
  SET, C,
  GET, ACC,
  GET, C,
  ...EXTEND_LOW_I8_S,
  GET, QP,
  ...V128_LOAD(0), // 8 int16 of the query
  ...I32X4_DOT_I16,
  ...I32X4_ADD,
  GET, C,
  ...EXTEND_HIGH_I8_S,
  GET, QP,
  ...V128_LOAD(16), // the next 8
  ...I32X4_DOT_I16,
  ...I32X4_ADD,
  SET, ACC,
  GET, QP,
  I32_CONST, 32,
  I32_ADD,
  SET, QP,
  GET, D,
  I32_CONST, 16,
  I32_ADD,
  SET, D,
  BR, 0,
  END,
  END,
  GET, OUT, // out[i] = the sum of acc's lanes
  GET, I,
  I32_CONST, 2,
  I32_SHL,
  I32_ADD,
  GET, ACC,
  ...LANE(0),
  GET, ACC,
  ...LANE(1),
  I32_ADD,
  GET, ACC,
  ...LANE(2),
  I32_ADD,
  GET, ACC,
  ...LANE(3),
  I32_ADD,
  I32_STORE, 2, 0,
  GET, CODES,
  GET, STRIDE,
  I32_ADD,
  SET, CODES,
  GET, I,
  I32_CONST, 1,
  I32_ADD,
  SET, I,
  BR, 0,
  END,
  END,
  END,
];

/** The module, importing its memory as a plain one or as a shared one (up to 4 GiB: an arena's bound is lower). */
export const moduleBytesFor = (shared: boolean) =>
  Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...str('env'), ...str('memory'), 0x02, ...(shared ? [0x03, 1, ...uleb(65536)] : [0x00, 1])]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...str('scan'), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);

export type ScanFn = (query: number, codes: number, n: number, stride: number, out: number) => void;

const compiled = new Map<boolean, object | null>();
/** The SIMD module (over a plain or a shared memory), or null where this runtime cannot run it (or LARDER_IVF_SIMD=0). */
function simdModule(shared = false): object | null {
  if (!compiled.has(shared)) {
    const bytes = moduleBytesFor(shared);
    compiled.set(shared, process.env.LARDER_IVF_SIMD !== '0' && wasm.validate(bytes) ? new wasm.Module(bytes) : null);
  }
  return compiled.get(shared)!;
}

export const simdAvailable = (): boolean => simdModule() !== null;

/** The same computation in TypeScript (fallback, and the reference the spec compares against). */
export function scanScalar(memory: WasmMemory): ScanFn {
  return (query, codes, n, stride, out) => {
    const buf = memory.buffer;
    const c8 = new Int8Array(buf);
    const q16 = new Int16Array(buf, query, stride);
    const o32 = new Int32Array(buf, out, n);
    for (let i = 0; i < n; i++) {
      const base = codes + i * stride;
      let s = 0;
      for (let d = 0; d < stride; d++) s += q16[d] * c8[base + d];
      o32[i] = s;
    }
  };
}

/** A scan function over `memory`: SIMD where available. */
export function scanOver(memory: WasmMemory, shared = false): ScanFn {
  const mod = simdModule(shared);
  if (!mod) return scanScalar(memory);
  return new wasm.Instance(mod, { env: { memory } }).exports.scan as ScanFn;
}

const PAGE = 65536;

/**
 * Int8 codes in one WebAssembly memory, with blocks handed out by size (freed blocks are reused for
 * the same size; list capacities double, so sizes repeat). Each arena keeps a scratch area for the
 * query and up to `SCAN_BATCH` scores. An arena stops growing at `maxBytes`; the caller opens another.
 */
export class CodeArena {
  static readonly SCAN_BATCH = 4096;
  readonly memory: WasmMemory;
  readonly scan: ScanFn;
  readonly query: number;
  readonly out: number;
  private top: number;
  private readonly free = new Map<number, number[]>();
  private views: { buf: ArrayBuffer | SharedArrayBuffer; i8: Int8Array; i16: Int16Array; i32: Int32Array } | null =
    null;

  /**
   * `shared`: the memory is a shared one, which another thread can fill and hand over (`state`,
   * `CodeArena.adopt`): a start's IVF lists are loaded so (ivf.prefetch.ts).
   */
  constructor(
    readonly stride: number,
    private readonly maxBytes = 1 << 30,
    readonly shared = false,
    adopted?: WasmMemory,
  ) {
    this.memory =
      adopted ??
      new wasm.Memory({ initial: 16, maximum: Math.ceil(maxBytes / PAGE), ...(shared ? { shared: true } : {}) });
    this.scan = scanOver(this.memory, shared);
    this.query = 0;
    this.out = align(stride * 2);
    this.top = align(this.out + CodeArena.SCAN_BATCH * 4);
  }

  /** What another thread needs to take this arena over (a shared one: its memory is not copied). */
  state(): CodeArenaState {
    if (!this.shared) throw new Error('only a shared code arena can be handed to another thread');
    return { memory: this.memory, stride: this.stride, maxBytes: this.maxBytes, top: this.top, free: [...this.free] };
  }

  /** The arena `state` describes, over the same (shared) memory. */
  static adopt(state: CodeArenaState): CodeArena {
    const arena = new CodeArena(state.stride, state.maxBytes, true, state.memory);
    arena.top = state.top;
    for (const [bytes, ats] of state.free) arena.free.set(bytes, [...ats]);
    return arena;
  }

  /** Typed views of the memory (renewed after it grew). */
  get v() {
    const buf = this.memory.buffer;
    if (!this.views || this.views.buf !== buf)
      this.views = { buf, i8: new Int8Array(buf), i16: new Int16Array(buf), i32: new Int32Array(buf) };
    return this.views;
  }

  /** A block of `bytes`, or null when this arena cannot hold it. */
  alloc(bytes: number): number | null {
    const reuse = this.free.get(bytes)?.pop();
    if (reuse !== undefined) return reuse;
    const at = this.top;
    const end = align(at + bytes);
    if (end > this.maxBytes) return null;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      try {
        this.memory.grow(Math.max(Math.ceil((end - have) / PAGE), Math.ceil(have / PAGE / 4)));
      } catch {
        try {
          this.memory.grow(Math.ceil((end - have) / PAGE));
        } catch {
          return null;
        }
      }
    }
    this.top = end;
    return at;
  }

  /** Grows the memory at once to hold `bytes` more (a load that knows its size: no growth step by step). */
  reserve(bytes: number): void {
    const end = Math.min(this.maxBytes, align(this.top + bytes));
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      try {
        this.memory.grow(Math.ceil((end - have) / PAGE));
      } catch {
        // left to alloc, step by step
      }
    }
  }

  release(at: number, bytes: number): void {
    const l = this.free.get(bytes) ?? [];
    l.push(at);
    this.free.set(bytes, l);
  }

  /** Writes the query (a unit vector) as int16, scaled to use the full range; answers the scale. */
  setQuery(unit: Float32Array): number {
    let max = 0;
    for (let i = 0; i < unit.length; i++) max = Math.max(max, Math.abs(unit[i]));
    const scale = max ? 32767 / max : 1;
    const q = this.v.i16;
    const base = this.query >> 1;
    for (let i = 0; i < this.stride; i++) q[base + i] = i < unit.length ? Math.round(unit[i] * scale) : 0;
    return scale;
  }
}

const align = (n: number) => (n + 15) & ~15;

/** A shared code arena as it is handed to another thread (`CodeArena.state`, `CodeArena.adopt`). */
export interface CodeArenaState {
  memory: WasmMemory;
  stride: number;
  maxBytes: number;
  top: number;
  free: Array<[number, number[]]>;
}

/**
 * A fixed set of unit vectors (k-means centroids) as int8 codes, for choosing lists: the scores of a
 * query against every row in one kernel call.
 */
export class Int8Matrix {
  private readonly arena: CodeArena;
  private readonly at: number;
  private readonly out: number;

  constructor(
    rows: Float32Array,
    readonly dims: number,
  ) {
    const stride = (dims + 15) & ~15;
    this.rows = rows.length / dims;
    this.arena = new CodeArena(stride, Math.max(1 << 24, this.rows * (stride + 4) + (1 << 20)));
    this.at = this.arena.alloc(this.rows * stride)!;
    this.out = this.arena.alloc(this.rows * 4)!;
    const i8 = this.arena.v.i8;
    for (let r = 0; r < this.rows; r++) {
      for (let d = 0; d < dims; d++)
        i8[this.at + r * stride + d] = Math.max(-127, Math.min(127, Math.round(rows[r * dims + d] * 127)));
    }
  }

  readonly rows: number;

  /** The scores of `unit` against every row (int8 units; larger is nearer), valid until the next call. */
  scores(unit: Float32Array): Int32Array {
    this.arena.setQuery(unit);
    this.arena.scan(this.arena.query, this.at, this.rows, this.arena.stride, this.out);
    return this.arena.v.i32.subarray(this.out >> 2, (this.out >> 2) + this.rows);
  }

  /** The row nearest to `unit`. */
  nearest(unit: Float32Array): number {
    const s = this.scores(unit);
    let best = 0;
    for (let r = 1; r < s.length; r++) if (s[r] > s[best]) best = r;
    return best;
  }
}

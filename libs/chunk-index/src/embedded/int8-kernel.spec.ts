import { CodeArena, scanScalar, simdAvailable } from './int8-kernel';

describe('int8 dot-product kernel', () => {
  const rnd = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;

  it('runs as WebAssembly SIMD on this runtime', () => {
    expect(simdAvailable()).toBe(true);
  });

  it.each([16, 37, 384, 1024])(
    'gives the exact integer dot products of the TypeScript loop (%i dimensions)',
    (dims) => {
      const r = rnd(dims);
      const arena = new CodeArena((dims + 15) & ~15);
      const n = 1000;
      const at = arena.alloc(n * arena.stride)!;
      const i8 = arena.v.i8;
      for (let i = 0; i < n; i++)
        for (let d = 0; d < arena.stride; d++) i8[at + i * arena.stride + d] = d < dims ? Math.round(r() * 127) : 0;
      const unit = Float32Array.from({ length: dims }, r);
      const scale = arena.setQuery(unit);
      arena.scan(arena.query, at, n, arena.stride, arena.out);
      const simd = arena.v.i32.slice(arena.out >> 2, (arena.out >> 2) + n);
      scanScalar(arena.memory)(arena.query, at, n, arena.stride, arena.out);
      const scalar = arena.v.i32.slice(arena.out >> 2, (arena.out >> 2) + n);
      expect(Array.from(simd)).toEqual(Array.from(scalar));
      // and the integers approximate the float dot product of the query with the codes
      for (let i = 0; i < 5; i++) {
        let want = 0;
        for (let d = 0; d < dims; d++) want += unit[d] * i8[at + i * arena.stride + d];
        expect(Math.abs(simd[i] / scale - want)).toBeLessThan(0.01 * Math.max(1, Math.abs(want)) + 0.5);
      }
    },
  );

  it.each([0, 1, 2, 3, 5, 6, 7, 9, 1001, 1003])(
    'scores every one of %i codes as the TypeScript loop does, and writes nothing past them',
    (n) => {
      const r = rnd(n + 1);
      const arena = new CodeArena(384);
      const at = arena.alloc(Math.max(n, 1) * arena.stride)!;
      const i8 = arena.v.i8;
      for (let i = 0; i < n * arena.stride; i++) i8[at + i] = Math.round(r() * 127);
      arena.setQuery(Float32Array.from({ length: 384 }, r));
      const o = arena.out >> 2;
      arena.v.i32.fill(-1, o, o + n + 4);
      arena.scan(arena.query, at, n, arena.stride, arena.out);
      const simd = arena.v.i32.slice(o, o + n + 4);
      scanScalar(arena.memory)(arena.query, at, n, arena.stride, arena.out);
      expect(Array.from(simd.subarray(0, n))).toEqual(Array.from(arena.v.i32.slice(o, o + n)));
      expect(Array.from(simd.subarray(n))).toEqual([-1, -1, -1, -1]); // nothing written past the n scores
    },
  );

  it('keeps codes across memory growth, reuses freed blocks and refuses beyond its limit', () => {
    const arena = new CodeArena(16, 4 << 20);
    const a = arena.alloc(64 * 16)!;
    arena.v.i8.fill(7, a, a + 64 * 16);
    const big = arena.alloc(3 << 20)!; // grows the memory
    expect(big).toBeGreaterThan(a);
    expect(arena.v.i8[a + 100]).toBe(7);
    arena.release(a, 64 * 16);
    expect(arena.alloc(64 * 16)).toBe(a);
    expect(arena.alloc(2 << 20)).toBeNull();
  });
});

import { normalize } from '../embedded/ivf';

/** What the crash spec and its child writer share. */
export const CRASH_MODEL = 'crash-model';
export const CRASH_DIMS = 24;
/** Small thresholds so that trainings, retrainings and list rewrites all happen within a few seconds of writes. */
export const CRASH_OPTIONS = { ivfMinVectors: 300, ivfLists: 12, ivfProbes: 12, ivfRetrainFactor: 4, ivfCompactMinDelta: 40 };
export const CRASH_STORES = ['00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-0000000000c2'];

/** Deterministic PRNG (mulberry32). */
export function crashRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A unit vector around one of 6 directions (clustered, as embeddings are). */
export function crashVector(r: () => number, dims: number): Float32Array {
  const c = Math.floor(r() * 6);
  return normalize(Float32Array.from({ length: dims }, (_, d) => (d % 6 === c ? 1 : 0) + (r() * 2 - 1) * 0.6));
}

import type { ChunkIndexOp } from '../chunk-index.port';
import { normalize } from '../embedded/ivf';
import { seededRandom } from '@larder/kernel/testing/random';
import { newFileOps } from './file-ops';

/** What the crash spec and its child writer share. */
export const CRASH_MODEL = 'crash-model';
export const CRASH_DIMS = 24;
/** Small thresholds so that trainings, retrainings and list rewrites all happen within a few seconds of writes. */
export const CRASH_OPTIONS = {
  ivfMinVectors: 300,
  ivfLists: 12,
  ivfProbes: 12,
  ivfRetrainFactor: 4,
  ivfCompactMinDelta: 40,
};
export const CRASH_STORES = ['00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-0000000000c2'];

/** Deterministic PRNG (the specs' seededRandom). */
export const crashRng = seededRandom;

/** A unit vector around one of 6 directions (clustered, as embeddings are). */
export function crashVector(r: () => number, dims: number): Float32Array {
  const c = Math.floor(r() * 6);
  return normalize(Float32Array.from({ length: dims }, (_, d) => (d % 6 === c ? 1 : 0) + (r() * 2 - 1) * 0.6));
}

/** A new file of `n` one-line chunks (generation 1) and its crash-model vectors, as the writes that add it. */
export function crashFileOps(storeId: string, fileId: string, n: number, r: () => number): ChunkIndexOp[] {
  return newFileOps(
    storeId,
    fileId,
    CRASH_MODEL,
    Array.from({ length: n }, () => crashVector(r, CRASH_DIMS)),
  );
}

import { randomUUID } from 'crypto';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { seededRandom } from '@larder/kernel/testing/random';
import { fileOps, pct } from './search-speed.bench';

/**
 * The peers bench's hard dense set (`BENCH_PEERS_SET=hard`): `normalize(centre + 0.06 · N(0,1))` around
 * 1,000 random unit centres, 512-d, queries drawn the same way, an exact top-10 as the truth. Larder's
 * embedded index, hnswlib (M 16, ef_construction 200) and USearch (M 16, ef_construction 200, f32),
 * each in a child process of its own (peers.bench.ts runs them); every setting's queries are timed
 * `BENCH_PEERS_RUNS` times, one query at a time, so that a run's tail shows beside the others.
 */

export const HARD_DIMS = 512;
const CENTRES = 1000;
const SIGMA = 0.06;
export const HARD_SYSTEMS = ['larder', 'hnswlib', 'usearch'] as const;
export type HardSystem = (typeof HARD_SYSTEMS)[number];
const MODEL = 'bench-peers-hard-512';

export interface HardData {
  dims: number;
  /** row i's vector at i * dims (unit length) */
  matrix: Float32Array;
  /** each row's centre (its text in Larder) */
  centre: Int32Array;
  queries: Float32Array[];
}

/** Standard normal draws (Box-Muller) from a seeded uniform generator. */
function gaussian(seed: number): () => number {
  const u = seededRandom(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    const a = 2 * Math.PI * u();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
}

function normalizeAt(m: Float32Array, o: number, dims: number): void {
  let n = 0;
  for (let d = 0; d < dims; d++) n += m[o + d] * m[o + d];
  n = Math.sqrt(n) || 1;
  for (let d = 0; d < dims; d++) m[o + d] /= n;
}

/** The hard set's `n` vectors and `queries` queries (deterministic). */
export function hardData(n: number, queries: number): HardData {
  const dims = HARD_DIMS;
  const g = gaussian(0x5eed);
  const pick = seededRandom(0xc0de);
  const centres = new Float32Array(CENTRES * dims);
  for (let i = 0; i < centres.length; i++) centres[i] = g();
  for (let c = 0; c < CENTRES; c++) normalizeAt(centres, c * dims, dims);
  const draw = (out: Float32Array, o: number): number => {
    const c = Math.floor(pick() * CENTRES);
    for (let d = 0; d < dims; d++) out[o + d] = centres[c * dims + d] + SIGMA * g();
    normalizeAt(out, o, dims);
    return c;
  };
  const matrix = new Float32Array(n * dims);
  const centre = new Int32Array(n);
  for (let i = 0; i < n; i++) centre[i] = draw(matrix, i * dims);
  const qs = Array.from({ length: queries }, () => {
    const q = new Float32Array(dims);
    draw(q, 0);
    return q;
  });
  return { dims, matrix, centre, queries: qs };
}

/** Exact top-10 by inner product (the vectors are unit length: cosine). */
export function exactTop10(matrix: Float32Array, dims: number, q: Float32Array): number[] {
  const top: Array<[number, number]> = [];
  const n = matrix.length / dims;
  for (let i = 0; i < n; i++) {
    let s0 = 0;
    let s1 = 0;
    const o = i * dims;
    for (let d = 0; d < dims; d += 2) {
      s0 += matrix[o + d] * q[d];
      s1 += matrix[o + d + 1] * q[d + 1];
    }
    const s = s0 + s1;
    if (top.length < 10 || s > top[top.length - 1][0]) {
      top.push([s, i]);
      top.sort((a, b) => b[0] - a[0]);
      if (top.length > 10) top.pop();
    }
  }
  return top.map(([, i]) => i);
}

export const recallOf = (got: number[][], truth: number[][]) =>
  got.reduce((hit, ids, qi) => hit + ids.filter((id) => truth[qi].includes(id)).length, 0) / (truth.length * 10);

/** One setting of a system: its recall and each run's latencies. */
export interface HardSetting {
  setting: string;
  recall: number;
  runs: Array<{ p50: number; p99: number }>;
}

export interface HardResult {
  system: HardSystem;
  index: string;
  buildMs: number;
  /** RSS after the build (after a full GC) less RSS before it, bytes */
  rssDelta: number;
  /** peak RSS during the build less RSS before it, bytes */
  peakDelta: number;
  /** of the RSS Δ, the growth of the JS heap and of memory outside it that V8 knows of (array buffers, WebAssembly memories) */
  heap: number;
  external: number;
  settings: HardSetting[];
}

/**
 * Larder's embedded index at `path`, filled with the rows of `matrix` (`dims` floats each) and their
 * texts, 100 chunks a file and a write, opened with `ivfProbes` `probes` (answered open as `ix`); `open`
 * opens it again with other probes.
 */
export async function fillLarder(
  path: string,
  model: string,
  matrix: Float32Array,
  dims: number,
  textOf: (row: number) => string,
  probes: number,
): Promise<{ storeId: string; ix: SqliteChunkIndex; open: (probes: number) => Promise<SqliteChunkIndex> }> {
  const open = async (probes: number) => {
    const ix = new SqliteChunkIndex(path, { ivfProbes: probes });
    await ix.setup();
    return ix;
  };
  const storeId = randomUUID();
  const n = matrix.length / dims;
  const ix = await open(probes);
  let seq = 0n;
  for (let f = 0; f * 100 < n; f++) {
    const rows = Math.min(100, n - f * 100);
    const file = {
      f,
      fileId: `00000000-0000-4000-8000-${f.toString(16).padStart(12, '0')}`,
      texts: Array.from({ length: rows }, (_, j) => textOf(f * 100 + j)),
      vectors: Array.from({ length: rows }, (_, j) => matrix.subarray((f * 100 + j) * dims, (f * 100 + j + 1) * dims)),
    };
    await ix.write(fileOps(storeId, file, model), {
      projection: 'bench',
      version: 1,
      position: { commit: ++seq, prepare: seq },
    });
  }
  return { storeId, ix, open };
}

/** The build's measures, taken by the caller's `built()` (runSystem's clock and memory readings). */
interface Built {
  buildMs: number;
  rssDelta: number;
  peakDelta: number;
  heap: number;
  external: number;
}

const RUNS = Number(process.env.BENCH_PEERS_RUNS ?? 3);

/** Each query once (recall), then `RUNS` timed passes over them all, one query at a time (after 20 as a warm-up). */
async function measureSetting(
  setting: string,
  data: HardData,
  truth: number[][],
  search: (qi: number) => Promise<number[]> | number[],
  progress: (line: string) => void,
): Promise<HardSetting> {
  const got: number[][] = [];
  for (let qi = 0; qi < data.queries.length; qi++) got.push(await search(qi));
  const recall = recallOf(got, truth);
  const runs: HardSetting['runs'] = [];
  for (let qi = 0; qi < Math.min(20, data.queries.length); qi++) await search(qi);
  for (let r = 0; r < RUNS; r++) {
    const ms: number[] = [];
    for (let qi = 0; qi < data.queries.length; qi++) {
      const s = performance.now();
      await search(qi);
      ms.push(performance.now() - s);
    }
    runs.push({ p50: pct(ms, 50), p99: pct(ms, 99) });
  }
  progress(
    `${setting}: recall@10 ${recall.toFixed(3)}, p50/p99 ${runs.map((x) => `${x.p50.toFixed(2)}/${x.p99.toFixed(2)}`).join(', ')} ms`,
  );
  return { setting, recall, runs };
}

/**
 * Builds one system on the hard set and measures it (in its child process); `built` ends the build's
 * clock and takes its memory, `dir` is the child's own folder.
 */
export async function runHard(
  system: HardSystem,
  data: HardData,
  truth: number[][],
  dir: string,
  start: () => void,
  built: () => Built,
  progress: (line: string) => void,
): Promise<HardResult> {
  const { dims } = data;
  const n = data.matrix.length / dims;
  const settings: HardSetting[] = [];
  start();
  if (system === 'larder') {
    const filled = await fillLarder(
      join(dir, 'chunks.sqlite'),
      MODEL,
      data.matrix,
      dims,
      (i) => `cluster c${data.centre[i]}`,
      16,
    );
    const { storeId, open } = filled;
    let ix = filled.ix;
    const b = built();
    const rowOf = (r: { fileId: string; chunkIndex: number }) => parseInt(r.fileId.slice(-12), 16) * 100 + r.chunkIndex;
    for (const p of [16, 32]) {
      if (p !== 16) {
        await ix.close();
        ix = await open(p);
      }
      const label = `ivfProbes ${p}${p === 16 ? ' (the default)' : ''}`;
      settings.push(
        await measureSetting(
          label,
          data,
          truth,
          async (qi) =>
            (await ix.searchDense({ storeIds: [storeId], vector: data.queries[qi], topK: 10, model: MODEL })).map(
              rowOf,
            ),
          progress,
        ),
      );
    }
    await ix.close();
    return { system, index: 'SQLite file: IVF over int8 codes, exact re-scoring', ...b, settings };
  }
  if (system === 'hnswlib') {
    const { HierarchicalNSW } = await import('hnswlib-node');
    const ix = new HierarchicalNSW('ip', dims);
    ix.initIndex(n, 16, 200, 100);
    for (let i = 0; i < n; i++) ix.addPoint(Array.from(data.matrix.subarray(i * dims, (i + 1) * dims)), i);
    const b = built();
    // its API takes plain arrays: the queries are converted before the clock
    const qs = data.queries.map((q) => Array.from(q));
    for (const ef of [64, 128]) {
      ix.setEf(ef);
      settings.push(
        await measureSetting(`ef ${ef}`, data, truth, (qi) => ix.searchKnn(qs[qi], 10).neighbors, progress),
      );
    }
    return { system, index: 'HNSW in memory (M 16, ef_construction 200, f32, one thread)', ...b, settings };
  }
  const { Index, MetricKind, ScalarKind } = await import('usearch');
  const ix = new Index({
    dimensions: dims,
    metric: MetricKind.IP,
    quantization: ScalarKind.F32,
    connectivity: 16,
    expansion_add: 200,
    expansion_search: 64,
    multi: false,
  });
  ix.add(
    BigUint64Array.from({ length: n }, (_, i) => BigInt(i)),
    data.matrix,
  );
  const b = built();
  const path = join(dir, 'usearch.index');
  ix.save(path);
  for (const ef of [64, 128]) {
    const at =
      ef === 64
        ? ix
        : new Index({
            dimensions: dims,
            metric: MetricKind.IP,
            quantization: ScalarKind.F32,
            connectivity: 16,
            expansion_add: 200,
            expansion_search: ef,
            multi: false,
          });
    if (at !== ix) at.load(path);
    settings.push(
      await measureSetting(
        `ef ${ef}`,
        data,
        truth,
        (qi) => Array.from(at.search(data.queries[qi], 10, 1).keys, Number),
        progress,
      ),
    );
  }
  return { system, index: 'HNSW in memory (M 16, ef_construction 200, f32, all cores)', ...b, settings };
}

const MiB = 1024 * 1024;

/** The hard set's table (markdown), one row per system and setting. */
export function hardTable(results: HardResult[]): string {
  const header = [
    'system',
    'setting',
    'build s',
    'RSS Δ MiB',
    'peak Δ MiB',
    'recall@10',
    'p50 ms (runs)',
    'p99 ms (runs)',
    'worst p99 / p50',
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const r of results)
    for (const s of r.settings)
      lines.push(
        `| ${[
          r.system,
          s.setting,
          (r.buildMs / 1000).toFixed(1),
          `${(r.rssDelta / MiB).toFixed(0)} (${(r.heap / MiB).toFixed(0)}, ${(r.external / MiB).toFixed(0)})`,
          (r.peakDelta / MiB).toFixed(0),
          s.recall.toFixed(3),
          s.runs.map((x) => x.p50.toFixed(2)).join(' / '),
          s.runs.map((x) => x.p99.toFixed(2)).join(' / '),
          Math.max(...s.runs.map((x) => x.p99 / x.p50)).toFixed(1),
        ].join(' | ')} |`,
      );
  return lines.join('\n');
}

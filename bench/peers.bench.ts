import { spawn } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join } from 'path';
import { benchQueries, corpus, corpusFiles, DIMS, pct } from './search-speed.bench';
import {
  exactTop10,
  fillLarder,
  HARD_DIMS,
  HARD_SYSTEMS,
  hardData,
  HardResult,
  HardSystem,
  hardTable,
  recallOf,
  runHard,
} from './peers-hard';

/**
 * Larder's embedded chunk index beside three peers, one run, same machine, same data and queries
 * LanceDB (IVF_PQ + refine, its FTS index), Orama (exact vector scan, its BM25) and
 * USearch (HNSW). Each system is built and queried in its own child process (node --expose-gc), so
 * its memory is its own; the corpus is search-speed's (40 Zipf words, 384-d vectors around 512
 * centres). Dense answers are scored against an exact scan; each system's knob (IVF probes, nprobes
 * and refine factor, HNSW ef, Orama's similarity floor) is raised until recall@10 reaches 0.95.
 * `BENCH_PEERS_SET=hard` runs the hard dense set instead (peers-hard.ts: Larder, hnswlib, USearch).
 */

const HARD = process.env.BENCH_PEERS_SET === 'hard';
const N = Number(process.env.BENCH_PEERS_CHUNKS ?? (HARD ? 200_000 : 100_000));
const QUERIES = Number(process.env.BENCH_PEERS_QUERIES ?? 200);
const TARGET = 0.95;
const SYSTEMS = ['larder', 'lancedb', 'orama', 'usearch'] as const;
type System = (typeof SYSTEMS)[number];
const ROOT = join(__dirname, '..', '..');
const MODEL = 'bench-peers-384';
const MiB = 1024 * 1024;

interface Data {
  texts: string[];
  /** row i's vector at i * DIMS (unit length) */
  matrix: Float32Array;
  queries: Array<{ text: string; vector: Float32Array }>;
}

/** search-speed's corpus and queries, flattened: row i is chunk i % 100 of corpus file i / 100. */
function dataset(n: number, queries: number): Data {
  const c = corpus();
  const texts: string[] = new Array<string>(n);
  const matrix = new Float32Array(n * DIMS);
  let i = 0;
  for (const file of corpusFiles(c, n)) {
    for (let j = 0; j < file.texts.length; j++, i++) {
      texts[i] = file.texts[j];
      matrix.set(file.vectors[j], i * DIMS);
    }
  }
  return { texts, matrix, queries: benchQueries(c, queries) };
}

interface Timed {
  p50: number;
  p99: number;
  qps: number;
}

interface Result {
  system: System;
  /** what was built, in words */
  index: string;
  buildMs: number;
  /** RSS after the build (after a full GC) less RSS before it, bytes */
  rssDelta: number;
  /** peak RSS during the build less RSS before it, bytes */
  peakDelta: number;
  /** bytes on disk, where the system writes files */
  disk: number | null;
  dense: Timed & { recall: number; setting: string };
  tried: Array<{ setting: string; recall: number }>;
  lexical: (Timed & { ids: number[][] }) | null;
  notes: string[];
}

/** Times the queries one at a time (after the first 20 as a warm-up) and keeps their answers. */
async function time<T>(
  queries: Data['queries'],
  fn: (q: Data['queries'][number]) => Promise<T> | T,
): Promise<Timed & { answers: T[] }> {
  for (const q of queries.slice(0, 20)) await fn(q);
  const ms: number[] = [];
  const answers: T[] = [];
  const w0 = performance.now();
  for (const q of queries) {
    const s = performance.now();
    answers.push(await fn(q));
    ms.push(performance.now() - s);
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99), qps: queries.length / ((performance.now() - w0) / 1000), answers };
}

const diskBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? diskBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );

function vmHwm(): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
}

/** RSS after a full collection (the child runs with --expose-gc). */
function settledRss(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().rss;
}

/**
 * Tries the settings in order (cheapest first) until recall@10 reaches the target; returns that
 * setting's search function, with the recall of every setting tried.
 */
async function tune<S>(
  data: Data,
  truth: number[][],
  settings: S[],
  label: (s: S) => string,
  searcher: (s: S) => Promise<(q: Float32Array) => Promise<number[]> | number[]>,
): Promise<{
  search: (q: Float32Array) => Promise<number[]> | number[];
  setting: string;
  recall: number;
  tried: Result['tried'];
}> {
  const tried: Result['tried'] = [];
  for (const s of settings) {
    const search = await searcher(s);
    const got: number[][] = [];
    for (const q of data.queries) got.push(await search(q.vector));
    const recall = recallOf(got, truth);
    progress(`${label(s)} → recall@10 ${recall.toFixed(3)}`);
    tried.push({ setting: label(s), recall });
    if (recall >= TARGET || s === settings[settings.length - 1]) return { search, setting: label(s), recall, tried };
  }
  throw new Error('no settings');
}

/** A child's progress on stderr: the parent shows its tail when the child fails or is killed for hanging. */
const progress = (line: string) => process.stderr.write(`${process.argv[2] ?? ''}: ${line}\n`);

/** Builds one system, measures it, and answers its Result (runs in the child process). */
async function runSystem(system: System, truth: number[][]): Promise<Result> {
  const data = dataset(N, QUERIES);
  const n = data.texts.length;
  // under the parent's folder, so a child killed for hanging leaves nothing behind
  const dir = mkdtempSync(join(process.env.BENCH_PEERS_DIR ?? tmpdir(), `larder-bench-peers-${system}-`));
  const notes: string[] = [];
  try {
    const rss0 = settledRss();
    writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS
    const t0 = performance.now();
    let measured = false;
    let buildMs = 0;
    let rssDelta = 0;
    let peakDelta = 0;
    /** Ends the build's clock and takes its memory (what the built index holds, the input data excluded). */
    const built = () => {
      buildMs = performance.now() - t0;
      peakDelta = vmHwm() - rss0;
      rssDelta = settledRss() - rss0;
      measured = true;
    };
    let index = '';
    let dense: Awaited<ReturnType<typeof tune>>;
    let lexical: (q: string) => Promise<number[]> | number[];

    if (system === 'larder') {
      const filled = await fillLarder(join(dir, 'chunks.sqlite'), MODEL, data.matrix, DIMS, (i) => data.texts[i], 8);
      const { storeId, open } = filled;
      let ix = filled.ix;
      built();
      index = 'SQLite: IVF (256 lists, int8 codes, exact re-scoring) + its own BM25 engine (block-max MaxScore)';
      const rowOf = (r: { fileId: string; chunkIndex: number }) =>
        parseInt(r.fileId.slice(-12), 16) * 100 + r.chunkIndex;
      dense = await tune(
        data,
        truth,
        [8, 16, 32, 64],
        (p) => `probes ${p}${p === 16 ? ' (the server default, LARDER_IVF_PROBES)' : ''}`,
        async (p) => {
          if (p !== 8) {
            await ix.close();
            ix = await open(p);
          }
          return async (v) =>
            (await ix.searchDense({ storeIds: [storeId], vector: v, topK: 10, model: MODEL })).map(rowOf);
        },
      );
      lexical = async (text) => (await ix.searchLexical({ storeIds: [storeId], topK: 10, text })).map(rowOf);
      const result = await measure();
      await ix.close();
      return result;
    }

    if (system === 'usearch') {
      const { Index, MetricKind, ScalarKind } = await import('usearch');
      const config = (ef: number) => ({
        dimensions: DIMS,
        metric: MetricKind.IP,
        quantization: ScalarKind.F32,
        connectivity: 16,
        expansion_add: 128,
        expansion_search: ef,
        multi: false,
      });
      const ix = new Index(config(64));
      const keys = BigUint64Array.from({ length: n }, (_, i) => BigInt(i));
      ix.add(keys, data.matrix.slice());
      built();
      index = 'HNSW in memory (M 16, ef_construction 128, f32)';
      notes.push(
        'USearch builds on all cores (its default); the others build on one thread, except LanceDB (all cores)',
      );
      const path = join(dir, 'usearch.index');
      ix.save(path);
      dense = await tune(
        data,
        truth,
        [16, 32, 64, 128, 256, 512],
        (ef) => `ef ${ef}`,
        async (ef) => {
          const at = ef === 64 ? ix : new Index(config(ef));
          if (at !== ix) at.load(path);
          return (v) => Array.from(at.search(v, 10, 1).keys, Number);
        },
      );
      return await measure();
    }

    if (system === 'lancedb') {
      const lancedb = await import('@lancedb/lancedb');
      const arrow = await import('apache-arrow');
      const db = await lancedb.connect(dir);
      const vectorType = new arrow.FixedSizeList(DIMS, new arrow.Field('item', new arrow.Float32(), true));
      const table = new arrow.Table({
        id: arrow.makeVector(Int32Array.from({ length: n }, (_, i) => i)),
        text: arrow.vectorFromArray(data.texts, new arrow.Utf8()),
        vector: arrow.makeVector(
          arrow.makeData({
            type: vectorType,
            length: n,
            nullCount: 0,
            child: arrow.makeData({ type: new arrow.Float32(), length: n * DIMS, data: data.matrix.slice() }),
          }),
        ),
      });
      const tbl = await db.createTable('chunks', table);
      const tData = performance.now();
      progress(`table written in ${((tData - t0) / 1000).toFixed(1)} s`);
      await tbl.createIndex('vector', { config: lancedb.Index.ivfPq({ distanceType: 'dot' }) });
      const tVec = performance.now();
      progress(`IVF_PQ built in ${((tVec - tData) / 1000).toFixed(1)} s`);
      await tbl.createIndex('text', { config: lancedb.Index.fts() });
      const tFts = performance.now();
      progress(`FTS built in ${((tFts - tVec) / 1000).toFixed(1)} s`);
      built();
      notes.push(
        `LanceDB: table written in ${((tData - t0) / 1000).toFixed(1)} s, IVF_PQ in ${((tVec - tData) / 1000).toFixed(1)} s, FTS in ${((tFts - tVec) / 1000).toFixed(1)} s`,
      );
      index = `Lance files: IVF_PQ (${Math.round(Math.sqrt(n))} partitions, ${DIMS / 16} sub-vectors × 8 bits, dot) + FTS (BM25)`;
      const ids = (rows: unknown[]) => (rows as Array<{ id: number }>).map((r) => r.id);
      dense = await tune(
        data,
        truth,
        [
          [20, 1],
          [20, 5],
          [20, 10],
          [20, 15],
          [20, 20],
          [40, 20],
          [40, 40],
          [80, 40],
        ],
        ([p, r]) => `nprobes ${p}, refine ×${r}`,
        async ([p, r]) =>
          async (v) =>
            ids(
              await tbl
                .vectorSearch(v)
                .distanceType('dot')
                .nprobes(p)
                .refineFactor(r)
                .select(['id'])
                .limit(10)
                .toArray(),
            ),
      );
      lexical = async (text) => ids(await tbl.query().fullTextSearch(text).select(['id']).limit(10).toArray());
      const result = await measure();
      tbl.close();
      db.close();
      return result;
    }

    // Orama: everything in the JS heap; vectors are plain arrays in its documents (its schema check
    // wants arrays) and Float32Arrays in its vector index; vector search is an exact scan.
    const orama = await import('@orama/orama');
    const db = orama.create({ schema: { text: 'string', embedding: `vector[${DIMS}]` } as const });
    const docs = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, j) => ({
        id: String(from + j),
        text: data.texts[from + j],
        embedding: Array.from(data.matrix.subarray((from + j) * DIMS, (from + j + 1) * DIMS)),
      }));
    for (let i = 0; i < n; i += 10_000) await orama.insertMultiple(db, docs(i, Math.min(n, i + 10_000)), 1000);
    built();
    index = 'in memory: exact vector scan + BM25 inverted index';
    const ids = (r: { hits: Array<{ id: string }> }) => r.hits.map((h) => Number(h.id));
    dense = await tune(
      data,
      truth,
      [0.6, 0.5, 0.4, 0.3, 0.2, 0],
      (s) => `similarity ≥ ${s}`,
      async (similarity) => async (v) =>
        ids(
          await orama.search(db, {
            mode: 'vector',
            vector: { value: Array.from(v), property: 'embedding' },
            similarity,
            limit: 10,
            includeVectors: false,
          }),
        ),
    );
    lexical = async (text) => ids(await orama.search(db, { term: text, properties: ['text'], limit: 10 }));
    notes.push(
      'Orama: the similarity floor is its only dense knob (the scan is exact; a floor above the 10th hit returns fewer than 10); its full-text search matches query words as prefixes (its default)',
    );
    return await measure();

    async function measure(): Promise<Result> {
      if (!measured) throw new Error('build not measured');
      const d = await time(data.queries, (q) => dense.search(q.vector));
      progress(`dense timed: p50 ${d.p50.toFixed(2)} ms`);
      let lex: Result['lexical'] = null;
      if (system !== 'usearch') {
        const { answers, ...timed } = await time(data.queries, (q) => lexical(q.text));
        progress(`BM25 timed: p50 ${timed.p50.toFixed(2)} ms`);
        lex = { ...timed, ids: answers };
      }
      return {
        system,
        index,
        buildMs,
        rssDelta,
        peakDelta,
        disk: system === 'larder' || system === 'lancedb' ? diskBytes(dir) : null,
        dense: { p50: d.p50, p99: d.p99, qps: d.qps, recall: dense.recall, setting: dense.setting },
        tried: dense.tried,
        lexical: lex,
        notes,
      };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds one system on the hard set and measures it (runs in the child process). */
async function runHardSystem(system: HardSystem, truth: number[][]): Promise<HardResult> {
  const data = hardData(N, QUERIES);
  const dir = mkdtempSync(join(process.env.BENCH_PEERS_DIR ?? tmpdir(), `larder-bench-peers-${system}-`));
  let rss0 = 0;
  let t0 = 0;
  let mem0 = process.memoryUsage();
  try {
    return await runHard(
      system,
      data,
      truth,
      dir,
      () => {
        rss0 = settledRss();
        mem0 = process.memoryUsage();
        writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS
        t0 = performance.now();
      },
      () => {
        const buildMs = performance.now() - t0;
        const peakDelta = vmHwm() - rss0;
        const rssDelta = settledRss() - rss0;
        const m = process.memoryUsage();
        const heap = { heap: m.heapUsed - mem0.heapUsed, external: m.external - mem0.external };
        return { buildMs, peakDelta, rssDelta, ...heap };
      },
      progress,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one system in a child process of its own and reads its result back. */
async function child<R extends { system: string }>(
  system: R['system'],
  truthFile: string,
  dir: string,
): Promise<R | { system: R['system']; error: string }> {
  const out = join(dir, `${system}.json`);
  const heap = process.env.BENCH_PEERS_HEAP_MB ?? '12288';
  const proc = spawn(
    process.execPath,
    [
      '--expose-gc',
      `--max-old-space-size=${heap}`,
      '-r',
      join(ROOT, 'tools/paths.js'),
      __filename,
      system,
      truthFile,
      out,
    ],
    {
      stdio: ['ignore', 'inherit', 'pipe'],
      env: {
        ...process.env,
        BENCH_PEERS_DIR: dir,
        // LanceDB's FTS build deadlocks when its CPU pool is sized from ≤ 2 cores (lancedb/lancedb#3568: a
        // producer parks the pool's only blocking thread); an explicit size of at least 2 avoids it
        ...(system === 'lancedb' && !process.env.LANCE_CPU_THREADS
          ? { LANCE_CPU_THREADS: String(Math.max(2, cpus().length)) }
          : {}),
      },
    },
  );
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  // a hung peer fails its row instead of the run (its stderr tail says how far it got)
  const limit = Number(process.env.BENCH_PEERS_CHILD_TIMEOUT_S ?? 1800);
  const timer = setTimeout(() => proc.kill('SIGKILL'), limit * 1000);
  const code = await new Promise<number | null>((r) => proc.once('exit', (c, sig) => r(c ?? (sig ? 128 : null))));
  clearTimeout(timer);
  if (code !== 0) return { system, error: `exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}` };
  return JSON.parse(readFileSync(out, 'utf8')) as R;
}

/** Writes a run's results to bench/results/<name>.json. */
function save(name: string, result: unknown): void {
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/${name}.json`), JSON.stringify(result, null, 2) + '\n');
}

/** The hard dense set: its truth in this process, each system in a child of its own. */
async function hardBench(): Promise<void> {
  const only = (process.env.BENCH_PEERS_SYSTEMS ?? HARD_SYSTEMS.join(',')).split(',');
  const systems = HARD_SYSTEMS.filter((s) => only.includes(s));
  process.stdout.write(
    `\n## Peers, hard dense set: ${N.toLocaleString('en')} × 512-d vectors around 1,000 centres (σ 0.06), ${QUERIES} queries, top-10\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-peers-'));
  try {
    const t0 = performance.now();
    // the data is the same every run: its exact truth is kept in the temp directory for the next run
    const truthFile = join(tmpdir(), `larder-bench-peers-hard-truth-${N}-${QUERIES}.json`);
    if (!existsSync(truthFile)) {
      const data = hardData(N, QUERIES);
      writeFileSync(truthFile, JSON.stringify(data.queries.map((q) => exactTop10(data.matrix, data.dims, q))));
    }
    process.stdout.write(`exact ground truth in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const results: HardResult[] = [];
    for (const s of systems) {
      const r = await child<HardResult>(s, truthFile, dir);
      if ('error' in r) process.stdout.write(`${s}: failed (${r.error})\n`);
      else results.push(r);
    }
    process.stdout.write(`\n${hardTable(results)}\n`);
    process.stdout.write(
      "\nRSS Δ: resident memory after the build and a full GC, less before it (the input vectors excluded); peak Δ: the build's peak over the same baseline. The raw vectors are " +
        `${((N * HARD_DIMS * 4) / 1024 / 1024).toFixed(0)} MiB. Each setting's ${QUERIES} queries timed ${process.env.BENCH_PEERS_RUNS ?? 3} times, one at a time.\n`,
    );
    save('peers-hard', { chunks: N, dims: HARD_DIMS, queries: QUERIES, results });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function peersBench(): Promise<void> {
  if (HARD) return hardBench();
  const only = (process.env.BENCH_PEERS_SYSTEMS ?? SYSTEMS.join(',')).split(',') as System[];
  const systems = SYSTEMS.filter((s) => s === 'larder' || only.includes(s));
  process.stdout.write(
    `\n## Peers: ${N.toLocaleString('en')} chunks, ${DIMS}-d synthetic vectors (512 clusters), 40-word Zipf texts, ${QUERIES} queries, top-10\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-peers-'));
  try {
    const t0 = performance.now();
    const data = dataset(N, QUERIES);
    const truth = data.queries.map((q) => exactTop10(data.matrix, DIMS, q.vector));
    const truthFile = join(dir, 'truth.json');
    writeFileSync(truthFile, JSON.stringify(truth));
    process.stdout.write(
      `exact ground truth for ${QUERIES} queries in ${((performance.now() - t0) / 1000).toFixed(1)} s; each system builds and answers in a child process of its own\n`,
    );

    const results: Array<Result | { system: System; error: string }> = [];
    for (const s of systems) {
      const r = await child<Result>(s, truthFile, dir);
      results.push(r);
      if ('error' in r) process.stdout.write(`${s}: failed (${r.error})\n`);
      else
        process.stdout.write(
          `${s}: ${r.index}; built in ${(r.buildMs / 1000).toFixed(1)} s; recall@10 by setting: ${r.tried.map((t) => `${t.setting} → ${t.recall.toFixed(3)}`).join(', ')}${r.notes.length ? `; ${r.notes.join('; ')}` : ''}\n`,
        );
    }

    const ok = results.filter((r): r is Result => !('error' in r));
    const base = ok.find((r) => r.system === 'larder');
    if (!base) throw new Error('the Larder run failed');
    const ratio = (x: number | null | undefined, b: number | null | undefined) =>
      x == null || b == null || !b ? '' : ` (${(x / b).toFixed(2)}×)`;
    const cell = (x: number | null | undefined, b: number | null | undefined, digits: number, isBase: boolean) =>
      x == null ? '—' : `${x.toFixed(digits)}${isBase ? '' : ratio(x, b)}`;
    const overlap = (r: Result) =>
      r.lexical && base.lexical
        ? (
            r.lexical.ids.reduce((s, ids, qi) => s + ids.filter((id) => base.lexical!.ids[qi].includes(id)).length, 0) /
            (QUERIES * 10)
          ).toFixed(2)
        : '—';
    const header = [
      'system',
      'build s',
      'RSS Δ MiB',
      'peak Δ MiB',
      'disk MiB',
      'dense recall@10 (setting)',
      'dense p50 ms',
      'dense p99 ms',
      'BM25 p50 ms',
      'BM25 p99 ms',
      'BM25 top-10 ∩ Larder',
    ];
    const rows = ok.map((r) => {
      const b = r === base;
      return [
        r.system,
        cell(r.buildMs / 1000, base.buildMs / 1000, 1, b),
        cell(r.rssDelta / MiB, base.rssDelta / MiB, 0, b),
        cell(r.peakDelta / MiB, base.peakDelta / MiB, 0, b),
        cell(r.disk == null ? null : r.disk / MiB, base.disk == null ? null : base.disk / MiB, 0, b),
        `${r.dense.recall.toFixed(3)} (${r.dense.setting})`,
        cell(r.dense.p50, base.dense.p50, 2, b),
        cell(r.dense.p99, base.dense.p99, 2, b),
        cell(r.lexical?.p50, base.lexical?.p50, 2, b),
        cell(r.lexical?.p99, base.lexical?.p99, 2, b),
        overlap(r),
      ];
    });
    process.stdout.write(`\n| ${header.join(' | ')} |\n|${header.map((_, i) => (i ? '---:' : '---')).join('|')}|\n`);
    for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
    process.stdout.write(
      "\n(ratio) = peer / Larder, below 1 the peer is ahead. RSS Δ: resident memory after the build and a full GC, less before it (the input data held by the bench excluded); peak Δ: the build's peak over the same baseline. Queries run one at a time.\n",
    );
    save('peers', {
      chunks: N,
      queries: QUERIES,
      results: ok.map((r) => ({
        ...r,
        lexical: r.lexical && { p50: r.lexical.p50, p99: r.lexical.p99, qps: r.lexical.qps },
      })),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [system, truthFile, out] = process.argv.slice(2) as [System & HardSystem, string, string];
  const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as number[][];
  (HARD ? runHardSystem(system, truth) : runSystem(system, truth)).then(
    (r) => (writeFileSync(out, JSON.stringify(r)), process.exit(0)),
    (err) => {
      // eslint-disable-next-line no-console
      console.error(err);
      process.exit(1);
    },
  );
}

import { spawn, ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { Agent, request } from 'http';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import Mixedbread from '@mixedbread/sdk';
import { cosineSimilarity as cosine } from '@larder/ai';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { apiCall, freePort, ownTime, parseServerTiming, saveResult, waitForServer } from './support';

/**
 * The default query path: a search's query embedded by the bundled model (USE lite) and
 * answered, through the official client, on the embedded default.
 *
 * 1. The model alone, in process: every CISI query embedded once by each runtime (onnxruntime, the
 *    default; TensorFlow.js, the fallback), p50/p99, the least cosine between the two over all
 *    queries, and documents per second on CISI's first documents (batches of 32).
 * 2. End to end, per runtime (LARDER_USE_LITE_RUNTIME): a fresh server, CISI uploaded through the API
 *    (one text file per document, BENCH_QUERY_PATH_UPLOADS at a time, default 4) and ingested, then
 *    every CISI query once through `@mixedbread/sdk` (`client.stores.search`, top_k 10 or BENCH_QUERY_PATH_TOP_K) after five
 *    warm-up queries on other text. Each query is asked once, so the server's cache of recent query
 *    embeddings never answers: every search runs the model. Printed: p50/p99 end to end (client), the
 *    `Server-Timing` steps (median) and the API's own overhead (client time − the server's `search`),
 *    through the SDK and, for the same queries again, through a kept-alive node:http agent.
 *
 * BENCH_QUERY_PATH_RUNTIMES: the servers' runtimes (default `onnx,tfjs`); BENCH_DATA_DIR: the collections (../shared/data).
 * BENCH_QUERY_PATH_KEEP=<dir>: the servers' data directories are kept under <dir> (one per runtime) and,
 * where one already holds an ingested CISI store, reused: the searches run without the ingestion (for
 * A/B runs of the query path; the model-alone part is then skipped too).
 * BENCH_QUERY_PATH_RESULTS=<file>: every CISI query's answer through the SDK (chunk ids and scores) is
 * written there, or, where the file exists, compared with it (the run fails on other chunks, another order, or a
 * score more than 1e-5 away).
 */
const ROOT = join(__dirname, '..', '..');
/** BENCH_SERVER_ROOT: the checkout whose built server the bench starts (default this one): A/B runs of two builds with the same client. */
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT || ROOT;
const DATA = process.env.BENCH_DATA_DIR ?? join(ROOT, '..', 'shared', 'data');
const UPLOADS = Number(process.env.BENCH_QUERY_PATH_UPLOADS ?? 4);
const KEEP = process.env.BENCH_QUERY_PATH_KEEP || null;
const RESULTS = process.env.BENCH_QUERY_PATH_RESULTS || null;
/**
 * BENCH_QUERY_PATH_ROUNDS (default 1): the CISI queries are asked this many times, round r > 1 each
 * query with " r" appended (its embedding is not the cached one): more searches for steadier
 * percentiles; the answers compared (BENCH_QUERY_PATH_RESULTS) are the first round's.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_QUERY_PATH_ROUNDS ?? 1));
/** BENCH_QUERY_PATH_TOP_K (default 10): the searches' top_k (larger answers: more chunks read, mapped and serialized). */
const TOP_K = Math.max(1, Number(process.env.BENCH_QUERY_PATH_TOP_K ?? 10));
const RUNTIMES = (process.env.BENCH_QUERY_PATH_RUNTIMES ?? 'onnx,tfjs')
  .split(',')
  .filter((r): r is 'onnx' | 'tfjs' => r === 'onnx' || r === 'tfjs');
const DOCS_EMBEDDED = 320;
const TOPICS = [
  'pickled cucumbers in brine',
  'how to set jam with pectin',
  'library catalogue automation',
  'citation indexing of journals',
  'machine translation of abstracts',
];
/** Warm-up queries (not CISI's): the server's and the client's code paths run hot before the timed queries. */
const WARMUP = Array.from({ length: 30 }, (_, i) => `${TOPICS[i % TOPICS.length]} ${i}`);

const out = (s = '') => process.stdout.write(`${s}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) a process has used so far, all its threads (or with `main`, its main thread: the event loop), in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid: number | undefined, main = false): number {
  try {
    const fields = readFileSync(main ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

function table(head: string[], rows: string[][]): void {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i ? c.padStart(w[i]) : c.padEnd(w[i]))).join(' | ')} |`;
  out(line(head));
  out(`|${w.map((n, i) => (i ? `${'-'.repeat(n + 1)}:` : '-'.repeat(n + 2))).join('|')}|`);
  for (const r of rows) out(line(r));
}

function readCisi(): { docs: Array<{ id: string; title: string; text: string }>; queries: string[] } {
  const jsonl = <T>(file: string) =>
    readFileSync(join(DATA, 'cisi', file), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as T);
  return {
    docs: jsonl<{ _id: string; title?: string; text?: string }>('corpus.jsonl').map((d) => ({
      id: d._id,
      title: d.title ?? '',
      text: d.text ?? '',
    })),
    queries: jsonl<{ text: string }>('queries.jsonl').map((q) => q.text),
  };
}

/** Each query once, one at a time: milliseconds per query and the vectors. */
async function embedEach(
  embedder: UseLiteEmbedder,
  queries: string[],
): Promise<{ ms: number[]; vectors: Float32Array[] }> {
  for (const w of WARMUP) await embedder.embed([w], 'query');
  const ms: number[] = [];
  const vectors: Float32Array[] = [];
  for (const q of queries) {
    const t = performance.now();
    const [v] = await embedder.embed([q], 'query');
    ms.push(performance.now() - t);
    vectors.push(v);
  }
  return { ms, vectors };
}

async function modelAlone(docs: string[], queries: string[]): Promise<void> {
  const onnx = new UseLiteEmbedder();
  const tfjs = new UseLiteEmbedder({ runtime: 'tfjs' });
  try {
    const a = await embedEach(onnx, queries);
    if (onnx.activeRuntime !== 'onnx')
      throw new Error('onnxruntime did not load: the default path fell back to TensorFlow.js');
    const b = await embedEach(tfjs, queries);
    const cosines = a.vectors.map((v, i) => cosine(v, b.vectors[i]));
    const worst = cosines.indexOf(Math.min(...cosines));
    const docsPerSecond = async (e: UseLiteEmbedder) => {
      const t = performance.now();
      await e.embed(docs, 'document');
      return docs.length / ((performance.now() - t) / 1000);
    };
    const dOnnx = await docsPerSecond(onnx);
    const dTfjs = await docsPerSecond(tfjs);
    out(
      `\nThe model alone, in process (${queries.length} CISI queries, each once after ${WARMUP.length} warm-up queries; load average ${loadavg()[0].toFixed(2)}):`,
    );
    table(
      ['runtime', 'query p50 ms', 'query p99 ms', `documents/s (${docs.length} CISI documents, batches of 32)`],
      [
        ['onnxruntime (default)', f2(pct(a.ms, 50)), f2(pct(a.ms, 99)), dOnnx.toFixed(1)],
        ['TensorFlow.js (fallback)', f2(pct(b.ms, 50)), f2(pct(b.ms, 99)), dTfjs.toFixed(1)],
      ],
    );
    out(
      `Least cosine, onnxruntime vs TensorFlow.js, over all ${queries.length} CISI queries: ${cosines[worst].toFixed(8)} (1 − ${(1 - cosines[worst]).toExponential(1)}, query ${worst + 1}); median ${pct(cosines, 50).toFixed(7)}.`,
    );
  } finally {
    await onnx.close();
    await tfjs.close();
  }
}

/** A server on a fresh data directory, CISI ingested through the API, every query once through the official client. */
async function endToEnd(
  runtime: 'onnx' | 'tfjs',
  docs: Array<{ id: string; title: string; text: string }>,
  queries: string[],
): Promise<string[][]> {
  const dataDir = KEEP ? join(KEEP, runtime) : mkdtempSync(join(tmpdir(), 'larder-query-path-'));
  const marker = join(dataDir, 'query-path-bench.json');
  const kept =
    KEEP && existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as { key: string; storeId: string }) : null;
  if (KEEP && !kept) rmSync(dataDir, { recursive: true, force: true });
  if (KEEP) mkdirSync(dataDir, { recursive: true });
  const key = kept?.key ?? `larder_root_${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  try {
    // BENCH_SERVER_NODE_ARGS: extra node flags for the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
    const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    child = spawn(
      process.execPath,
      [...extra, '-r', join(SERVER_ROOT, 'tools/paths.js'), join(SERVER_ROOT, 'dist/apps/api/src/main.js')],
      {
        env: {
          ...process.env,
          PORT: String(port),
          LARDER_DATA_DIR: dataDir,
          LARDER_ROOT_KEY: key,
          LARDER_LOG_LEVEL: 'warn',
          LARDER_USE_LITE_RUNTIME: runtime,
        },
        stdio: 'inherit',
      },
    );
    await waitForServer(base, 120);
    const client = new Mixedbread({ apiKey: key, baseURL: base, maxRetries: 0, timeout: 120_000 });
    const store = kept ? { id: kept.storeId } : await client.stores.create({ name: `query-path-${runtime}` });

    const t0 = performance.now();
    if (!kept) {
      let next = 0;
      let failed = 0;
      const uploader = async () => {
        while (next < docs.length) {
          const d = docs[next++];
          const boundary = `----larderbench${randomBytes(6).toString('hex')}`;
          const body = Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${d.id}.txt"\r\nContent-Type: text/plain\r\n\r\n${d.title}\n\n${d.text}\r\n--${boundary}--\r\n`,
          );
          const r = await apiCall(
            agent,
            base,
            key,
            'POST',
            `/v1/stores/${store.id}/files/upload`,
            body,
            `multipart/form-data; boundary=${boundary}`,
            120_000,
          );
          if (r.status !== 201) failed++;
        }
      };
      await Promise.all(Array.from({ length: UPLOADS }, uploader));
      let counts: { completed: number; failed: number; pending: number; in_progress: number };
      for (;;) {
        counts = (await client.stores.retrieve(store.id)).file_counts as typeof counts;
        if (!counts.pending && !counts.in_progress) break;
        await sleep(250);
      }
      if (failed || counts.failed || counts.completed !== docs.length)
        throw new Error(
          `${runtime}: ${failed} uploads failed, ${counts.completed} files completed, ${counts.failed} failed`,
        );
      if (KEEP) writeFileSync(marker, JSON.stringify({ key, storeId: store.id }));
    }
    const ingested = kept ? NaN : (performance.now() - t0) / 1000;
    // every projection and reactor current: the queries then run on a server with nothing left to catch up
    for (let i = 0; i < 1200; i++) {
      const r = await apiCall(agent, base, key, 'GET', '/health/ready').catch(() => null);
      const items = r
        ? ((JSON.parse(r.text) as { checks?: { projections?: { items?: Array<{ lag: number }> } } }).checks?.projections
            ?.items ?? [])
        : [];
      if (items.length && items.every((p) => p.lag === 0)) break;
      await sleep(100);
    }
    const settled = (performance.now() - t0) / 1000 - (kept ? 0 : ingested);

    const answers: string[][] = [];
    const search = async (query: string, keep = true) => {
      const t = performance.now();
      const { data, response } = await client.stores
        .search({ query, store_identifiers: [store.id], top_k: TOP_K })
        .withResponse();
      const ms = performance.now() - t;
      if (!data.data.length) throw new Error(`no results for ${query}`);
      if (keep) answers.push(data.data.map((c) => `${c.file_id}#${c.chunk_index} ${c.score.toFixed(6)}`));
      return { ms, steps: parseServerTiming(response.headers.get('server-timing')) };
    };
    for (const w of WARMUP) await search(w);
    const load = loadavg()[0];
    const runs: Array<{ ms: number; steps: Record<string, number> }> = [];
    answers.length = 0;
    const cpu0 = { server: cpuMs(child.pid), main: cpuMs(child.pid, true), client: process.cpuUsage() };
    const asked = Array.from({ length: ROUNDS }, (_, r) => queries.map((q) => (r ? `${q} ${r + 1}` : q))).flat();
    for (const [i, q] of asked.entries()) runs.push(await search(q, i < queries.length));
    const clientCpu = process.cpuUsage(cpu0.client);
    const cpu = {
      server: (cpuMs(child.pid) - cpu0.server) / asked.length,
      main: (cpuMs(child.pid, true) - cpu0.main) / asked.length,
      client: (clientCpu.user + clientCpu.system) / 1000 / asked.length,
    };
    if (RESULTS) {
      const file = `${RESULTS}.${runtime}${TOP_K === 10 ? '' : `.top${TOP_K}`}.json`;
      if (!existsSync(file)) writeFileSync(file, JSON.stringify(answers));
      else {
        const before = JSON.parse(readFileSync(file, 'utf8')) as string[][];
        // the same chunks in the same order, each score within 1e-5 (vectors computed in another float order move the 6th decimal)
        const same = (a: string[], b: string[]) =>
          a.length === b.length &&
          a.every(
            (x, j) =>
              x.split(' ')[0] === b[j].split(' ')[0] &&
              Math.abs(Number(x.split(' ')[1]) - Number(b[j].split(' ')[1])) <= 1e-5,
          );
        const differ = before.map((b, i) => (same(b, answers[i]) ? -1 : i)).filter((i) => i >= 0);
        if (differ.length)
          throw new Error(
            `${runtime}: ${differ.length} queries answered otherwise than in ${file} (first: query ${differ[0] + 1}: ${JSON.stringify(before[differ[0]])} vs ${JSON.stringify(answers[differ[0]])})`,
          );
        out(`\n${runtime}: all ${answers.length} answers as in ${file}.`);
      }
    }
    // The same queries again over a kept-alive node:http agent: the API's overhead without the client library
    // (the embeddings are cached now, which the overhead does not include).
    const raw = (query: string) =>
      new Promise<{ ms: number; steps: Record<string, number> }>((resolve, reject) => {
        const body = JSON.stringify({ query, store_identifiers: [store.id], top_k: TOP_K });
        const t = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/v1/stores/search',
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ ms: performance.now() - t, steps: parseServerTiming(res.headers['server-timing']) }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    for (const w of WARMUP) await raw(w);
    const rawRuns: Array<{ ms: number; steps: Record<string, number> }> = [];
    const rawCpu0 = process.cpuUsage();
    for (const q of asked) rawRuns.push(await raw(q));
    const rawOverhead = rawRuns.map((r) => r.ms - (r.steps.search ?? NaN));
    const rawCpu = process.cpuUsage(rawCpu0);
    const rawClientCpu = (rawCpu.user + rawCpu.system) / 1000 / asked.length;
    const med = (name: string) =>
      pct(
        runs.map((r) => r.steps[name] ?? 0),
        50,
      );
    const overhead = runs.map((r) => r.ms - (r.steps.search ?? NaN));
    // the API's own time per request (bench/support.ts ownTime): endpoint − index − embedding, and the server's own time on the critical path
    const own = runs.map((r) => ownTime(r.steps, r.ms));
    const rawOwn = rawRuns.map((r) => ownTime(r.steps, r.ms));
    const p5099 = (xs: number[]) => `${f2(pct(xs, 50))} / ${f2(pct(xs, 99))}`;
    const label = runtime === 'onnx' ? 'onnxruntime (default)' : 'TensorFlow.js';
    out(
      `\n${label}: ${kept ? `${docs.length} CISI documents already ingested in ${KEEP} (reused; the server restarted on them)` : `${docs.length} CISI documents uploaded and ingested in ${ingested.toFixed(1)} s (${(docs.length / ingested).toFixed(1)} documents/s, ${UPLOADS} uploads at a time)`}, projections current ${settled.toFixed(1)} s later; ${asked.length} searches (${queries.length} queries${ROUNDS > 1 ? ` × ${ROUNDS} rounds` : ''}), load average ${load.toFixed(2)} before them; CPU time per search through the SDK: the server ${f2(cpu.server)} ms (all its threads; ${f2(cpu.main)} ms on its main thread), the client ${f2(cpu.client)} ms (through node:http: ${f2(rawClientCpu)} ms).`,
    );
    return [
      [
        label,
        f2(
          pct(
            runs.map((r) => r.ms),
            50,
          ),
        ),
        f2(
          pct(
            runs.map((r) => r.ms),
            99,
          ),
        ),
        f2(med('embed')),
        f2(med('lexical')),
        f2(med('dense')),
        f2(med('hydrate')),
        f2(med('search')),
        f2(pct(overhead, 50)),
        f2(pct(overhead, 99)),
        `${f2(pct(rawOverhead, 50))} / ${f2(pct(rawOverhead, 99))}`,
        p5099(own.map((o) => o.endpoint)),
        p5099(rawOwn.map((o) => o.endpoint)),
        p5099(own.map((o) => o.server)),
        p5099(own.map((o) => o.critical)),
        `${f2(cpu.server)} / ${f2(cpu.main)}`,
        kept ? 'reused' : ingested.toFixed(1),
      ],
    ];
  } finally {
    agent.destroy();
    if (child && child.exitCode === null) {
      const c = child;
      const kill = setTimeout(() => c.kill('SIGKILL'), 20_000);
      await new Promise((r) => (c.once('exit', r), c.kill('SIGTERM')));
      clearTimeout(kill);
    }
    if (!KEEP) rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function queryPathBench(): Promise<void> {
  const { docs, queries } = readCisi();
  out(
    `\n## Query path: CISI queries embedded by the bundled model (USE lite) and searched through the official client`,
  );
  if (!KEEP || !RUNTIMES.every((r) => existsSync(join(KEEP, r, 'query-path-bench.json'))))
    await modelAlone(
      docs.slice(0, DOCS_EMBEDDED).map((d) => `${d.title}\n\n${d.text}`),
      queries,
    );
  const rows: string[][] = [];
  for (const r of RUNTIMES) rows.push(...(await endToEnd(r, docs, queries)));
  out(
    `\nEnd to end (\`client.stores.search\`, top_k ${TOP_K}, every query once: no cached embeddings); Server-Timing medians; overhead = client time − the server's \`search\` step (node:http: the same queries over a kept-alive node:http agent instead of the SDK):`,
  );
  out(
    `The API's own time per request (p50 / p99), from each answer's Server-Timing (bench/support.ts ownTime): "endpoint − index − embedding" = the time at the client − embed − dense − lexical_wait (through the SDK; through node:http, whose queries' embeddings are cached); "in the server" = the server's total (first middleware to the JSON body) − the same; "critical path" = total − embed_wait − dense − lexical_wait (work beside the embedding counted as the API's).`,
  );
  const head = [
    'runtime',
    'p50 ms',
    'p99 ms',
    'embed',
    'lexical',
    'dense',
    'hydrate',
    'search (handler)',
    'overhead p50',
    'overhead p99',
    'overhead, node:http p50 / p99',
    'endpoint − index − embedding: SDK',
    'node:http',
    'in the server (SDK run)',
    'critical path (SDK run)',
    'server CPU a search (SDK run): all threads / main thread, ms',
    'ingestion s',
  ];
  table(head, rows);
  // BENCH_RESULT_NAME: saved beside the default result (A/B runs)
  const suffix = process.env.BENCH_RESULT_NAME ? `-${process.env.BENCH_RESULT_NAME}` : '';
  const saved = saveResult(`query-path${TOP_K === 10 ? '' : `-top${TOP_K}`}${suffix}`, {
    server: SERVER_ROOT,
    topK: TOP_K,
    rounds: ROUNDS,
    rows: rows.map((r) => Object.fromEntries(head.map((h, k) => [h, r[k]]))),
  });
  out(`saved to ${saved}`);
}

import { spawn } from 'child_process';
import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { Agent } from 'http';
import { availableParallelism, tmpdir } from 'os';
import { join } from 'path';
import { heapSnapshotArgs, takeHeapSnapshot } from './heap-snapshots';
import { apiCall, freePort, memoryOf, saveResult, waitForServer } from './support';

/**
 * Load isolation: on the embedded default, BENCH_LOAD_SEARCHERS (12) searchers and BENCH_LOAD_UPLOADERS (4)
 * uploaders share the server for BENCH_LOAD_SECONDS (60); then BENCH_LOAD_HEAVY_SEARCHERS (64) searchers, the
 * uploaders and one store creator for BENCH_LOAD_HEAVY_SECONDS (20); then 16 searchers alone. Prints and saves
 * (bench/results/load[-BENCH_LOAD_NAME].json) what docs/benchmarks.md lists: searches per second,
 * p50 / p99 and 503s, uploads and their p50 / p99 and failures, store creates' p50 / p99, how long until every
 * projection is current after the load, and RSS growth (over the mixed load, and over all three), with the memory series of
 * `/metrics` before and after (what grew). BENCH_LOAD_SERVER_ENV adds settings to the server's
 * environment (`LARDER_SEARCH_CONCURRENCY=1000 LARDER_SEARCH_QUEUE=100000`: admission out of the way).
 * BENCH_LOAD_HEAP_SNAPSHOTS=<dir> has the server write a heap snapshot there before and after the load, and
 * prints its memory right after each (V8 has then collected all garbage: what is live).
 */
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const SEARCHERS = Number(process.env.BENCH_LOAD_SEARCHERS ?? 12);
const UPLOADERS = Number(process.env.BENCH_LOAD_UPLOADERS ?? 4);
const HEAVY_SEARCHERS = Number(process.env.BENCH_LOAD_HEAVY_SEARCHERS ?? 64);
const HEAVY_SECONDS = Number(process.env.BENCH_LOAD_HEAVY_SECONDS ?? 20);
const UPLOAD_TIMEOUT_MS = 15_000;
/** BENCH_SERVER_ROOT: the checkout whose built server the bench starts (default this one), for A/B runs of two builds. */
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT || join(__dirname, '..', '..');
/** The memory series of `/metrics` the bench prints before and after the load (MiB), where the server reports them. */
const MEMORY_SERIES =
  /^(process_resident_memory_bytes|nodejs_heap_size_used_bytes|nodejs_external_memory_bytes|larder_[a-z_]*(memory|cache|retained)_bytes(\{[^}]*\})?) /;

/** The seconds the server's main thread spent collecting garbage, by kind (prom-client's default series). */
const GC_SERIES = /^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} /;

/** BENCH_LOAD_SERVER_ENV: `NAME=value` pairs, space-separated. */
const serverEnv = (): Record<string, string> =>
  Object.fromEntries(
    (process.env.BENCH_LOAD_SERVER_ENV ?? '')
      .split(' ')
      .filter((x) => x.includes('='))
      .map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)]),
  );

const agent = new Agent({ keepAlive: true, maxSockets: 128 });

const call = (
  base: string,
  key: string,
  method: string,
  path: string,
  body?: Buffer,
  type = 'application/json',
  timeoutMs = 60_000,
) => apiCall(agent, base, key, method, path, body, type, timeoutMs);

function multipart(filename: string, text: string): { body: Buffer; type: string } {
  const boundary = `----larderload${randomBytes(6).toString('hex')}`;
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${boundary}--\r\n`,
  );
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const WORDS =
  'preserve jam pickle brine sugar jar lid seal vinegar apricot plum cherry larder shelf cellar winter harvest recipe spice salt'.split(
    ' ',
  );
const sentence = (n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(Math.random() * WORDS.length)]).join(' ');
const QUERIES = Array.from(
  { length: 24 },
  (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]}`,
);

type Call = (path: string, body?: Buffer) => Promise<{ status: number; text: string }>;

export interface MixResult {
  seconds: number;
  searchers: number;
  uploaders: number;
  creators: number;
  searches: number;
  perSecond: number;
  searchP50: number;
  searchP99: number;
  /** Searches answered 503 (the server's search queue was full or the wait too long). */
  refused: number;
  searchErrors: number;
  uploads: number;
  failedUploads: number;
  uploadP50: number;
  uploadP99: number;
  creates: number;
  failedCreates: number;
  createP50: number;
  createP99: number;
}

/** `searchers` searching, `uploaders` uploading and `creators` creating stores, each in a loop, for `seconds`. */
async function mix(o: {
  search: (q: string) => ReturnType<Call>;
  base: string;
  key: string;
  storeId: string;
  searchers: number;
  seconds: number;
  uploaders?: number;
  creators?: number;
}): Promise<MixResult> {
  const uploaders = o.uploaders ?? UPLOADERS;
  const creators = o.creators ?? 0;
  const until = Date.now() + o.seconds * 1000;
  const searchMs: number[] = [];
  const uploadMs: number[] = [];
  const createMs: number[] = [];
  let refused = 0;
  let searchErrors = 0;
  let failedUploads = 0;
  let failedCreates = 0;
  const failed = () => ({ status: 0, text: '' });
  const searcher = async () => {
    while (Date.now() < until) {
      const t = performance.now();
      const r = await o.search(QUERIES[Math.floor(Math.random() * QUERIES.length)]).catch(failed);
      if (r.status === 200) searchMs.push(performance.now() - t);
      else if (r.status === 503) refused++;
      else searchErrors++;
    }
  };
  const uploader = async () => {
    while (Date.now() < until) {
      const m = multipart(`load-${uploaded++}.txt`, sentence(200));
      const t = performance.now();
      const r = await call(
        o.base,
        o.key,
        'POST',
        `/v1/stores/${o.storeId}/files/upload`,
        m.body,
        m.type,
        UPLOAD_TIMEOUT_MS,
      ).catch(failed);
      if (r.status === 201) uploadMs.push(performance.now() - t);
      else failedUploads++;
    }
  };
  const creator = async () => {
    while (Date.now() < until) {
      const body = Buffer.from(JSON.stringify({ name: `load-${randomBytes(6).toString('hex')}` }));
      const t = performance.now();
      const r = await call(o.base, o.key, 'POST', '/v1/stores', body, 'application/json', UPLOAD_TIMEOUT_MS).catch(
        failed,
      );
      if (r.status === 201 || r.status === 200) createMs.push(performance.now() - t);
      else failedCreates++;
    }
  };
  const t0 = performance.now();
  await Promise.all([
    ...Array.from({ length: o.searchers }, searcher),
    ...Array.from({ length: uploaders }, uploader),
    ...Array.from({ length: creators }, creator),
  ]);
  const seconds = (performance.now() - t0) / 1000;
  return {
    seconds,
    searchers: o.searchers,
    uploaders,
    creators,
    searches: searchMs.length,
    perSecond: searchMs.length / seconds,
    searchP50: pct(searchMs, 50),
    searchP99: pct(searchMs, 99),
    refused,
    searchErrors,
    uploads: uploadMs.length,
    failedUploads,
    uploadP50: pct(uploadMs, 50),
    uploadP99: pct(uploadMs, 99),
    creates: createMs.length,
    failedCreates,
    createP50: pct(createMs, 50),
    createP99: pct(createMs, 99),
  };
}
let uploaded = 0;

/** Ms from `since` until every projection and reactor is current again (NaN after two minutes). */
async function caughtUp(base: string, key: string, since: number): Promise<number> {
  for (;;) {
    const r = await call(base, key, 'GET', '/health/ready').catch(() => null);
    const items = r
      ? ((JSON.parse(r.text) as { checks?: { projections?: { items?: Array<{ name: string; lag: number }> } } }).checks
          ?.projections?.items ?? [])
      : [];
    if (items.length && items.every((p) => p.lag === 0)) return performance.now() - since;
    if (performance.now() - since > 120_000) return NaN;
    await new Promise((r2) => setTimeout(r2, 100));
  }
}

/** The memory series of the server's `/metrics` (series name with its labels → bytes); empty where metrics are off. */
async function memorySeries(base: string): Promise<Map<string, number>> {
  const text = await fetch(`${base}/metrics`)
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
  const series = new Map<string, number>();
  for (const line of text.split('\n'))
    if (MEMORY_SERIES.test(line))
      series.set(line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1)));
  return series;
}

/** Seconds of garbage collection by kind from the server's `/metrics` (empty where metrics are off). */
async function gcSeconds(base: string): Promise<Map<string, number>> {
  const text = await fetch(`${base}/metrics`)
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
  const seconds = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = GC_SERIES.exec(line);
    if (m) seconds.set(m[1], Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return seconds;
}

export async function loadBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-load-'));
  const key = `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const root = SERVER_ROOT;
  // BENCH_LOAD_SERVER_ARGS: extra node flags for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`)
  const serverArgs = (process.env.BENCH_LOAD_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  const snapshots = process.env.BENCH_LOAD_HEAP_SNAPSHOTS;
  if (snapshots) serverArgs.push(...heapSnapshotArgs(snapshots));
  const child = spawn(
    process.execPath,
    [...serverArgs, '-r', join(root, 'tools/paths.js'), join(root, 'dist/apps/api/src/main.js')],
    {
      env: {
        ...process.env,
        PORT: String(port),
        LARDER_DATA_DIR: join(dir, 'data'),
        LARDER_ROOT_KEY: key,
        LARDER_LOG_LEVEL: 'warn',
        ...serverEnv(),
      },
      stdio: 'inherit',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const mib = (b: number) => Math.round(b / 2 ** 20);
  try {
    await waitForServer(base, 60);
    const store = JSON.parse(
      (await call(base, key, 'POST', '/v1/stores', Buffer.from(JSON.stringify({ name: 'load' })))).text,
    ) as { id: string };
    // a corpus to search: 60 small documents, ingested before the load starts
    for (let i = 0; i < 60; i++) {
      const m = multipart(`seed-${i}.txt`, `${sentence(80)}.\n\n${sentence(80)}.`);
      await call(base, key, 'POST', `/v1/stores/${store.id}/files/upload`, m.body, m.type);
    }
    for (;;) {
      const s = JSON.parse((await call(base, key, 'GET', `/v1/stores/${store.id}`)).text) as {
        file_counts: { pending: number; in_progress: number };
      };
      if (s.file_counts.pending + s.file_counts.in_progress === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const search = (q: string) =>
      call(
        base,
        key,
        'POST',
        '/v1/stores/search',
        Buffer.from(JSON.stringify({ query: q, store_identifiers: [store.id], top_k: 10 })),
      );
    for (const q of QUERIES) await search(q); // every query's embedding is now cached
    const rssBefore = memoryOf(child.pid!).rss;
    const memoryBefore = await memorySeries(base);
    const gcBefore = await gcSeconds(base);
    const snapshot = async () => {
      if (!snapshots) return null;
      const file = await takeHeapSnapshot(child.pid!, snapshots, base);
      return { file, rssMiB: mib(memoryOf(child.pid!).rss), memory: await memorySeries(base) };
    };
    const liveBefore = await snapshot();

    // mixed load
    const mixed = await mix({ search, base, key, storeId: store.id, searchers: SEARCHERS, seconds: SECONDS });
    const loadEnded = performance.now();
    // the growth the mixed load's target is about; the heavy and alone phases add theirs after it
    const rssAfterMixed = memoryOf(child.pid!).rss;
    const catchUpMs = await caughtUp(base, key, loadEnded);

    // heavy search load: 64 searchers beside the uploaders and a store creator
    const heavy = await mix({
      search,
      base,
      key,
      storeId: store.id,
      searchers: HEAVY_SEARCHERS,
      seconds: HEAVY_SECONDS,
      creators: 1,
    });
    const heavyCatchUpMs = await caughtUp(base, key, performance.now());

    // searches alone, 16 concurrent
    const alone = await mix({
      search,
      base,
      key,
      storeId: store.id,
      searchers: 16,
      uploaders: 0,
      seconds: Math.min(20, SECONDS),
    });
    const rssAfter = memoryOf(child.pid!).rss;
    const metrics = (await call(base, key, 'GET', '/metrics').catch(() => ({ text: '' }))).text;
    const refusedByServer = metrics
      .split('\n')
      .filter((l) => l.startsWith('larder_search_refused_total'))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    const memoryAfter = await memorySeries(base);
    const gcAfter = await gcSeconds(base);
    const gcDuringLoad = Object.fromEntries(
      [...gcAfter].map(([kind, s]) => [kind, Number((s - (gcBefore.get(kind) ?? 0)).toFixed(2))]),
    );
    const liveAfter = await snapshot();

    const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
    const mibOr = (x: number | undefined) => (x === undefined ? 'n/a' : (x / 2 ** 20).toFixed(1));
    const row = (label: string, r: MixResult) =>
      `| ${label} | ${r.perSecond.toFixed(0)}/s, ${f(r.searchP50)} / ${f(r.searchP99)} ms, ${r.refused} × 503, ${r.searchErrors} other | ${r.uploads} / ${r.failedUploads}, ${f(r.uploadP50)} / ${f(r.uploadP99)} ms | ${r.creates ? `${r.creates}, ${f(r.createP50)} / ${f(r.createP99)} ms` : '—'} |`;
    out(
      `load: embedded default; ${SEARCHERS} searchers + ${UPLOADERS} uploaders for ${SECONDS} s; ${HEAVY_SEARCHERS} searchers + ${UPLOADERS} uploaders + 1 store creator for ${HEAVY_SECONDS} s; 16 searchers alone`,
    );
    out(
      `| phase | searches: per second, p50 / p99, refused, other errors | uploads ok / failed, p50 / p99 | store creates, p50 / p99 |`,
    );
    out(`|---|---|---|---|`);
    out(row(`${SEARCHERS} searchers + ${UPLOADERS} uploaders`, mixed));
    out(row(`${HEAVY_SEARCHERS} searchers + ${UPLOADERS} uploaders + creator`, heavy));
    out(row('16 searchers alone', alone));
    out(`every projection current after the mixed / heavy load: ${f(catchUpMs)} / ${f(heavyCatchUpMs)} ms`);
    out(
      `server RSS before → after the mixed load → after all: ${mib(rssBefore)} → ${mib(rssAfterMixed)} (+${mib(rssAfterMixed - rssBefore)}) → ${mib(rssAfter)} MiB (+${mib(rssAfter - rssBefore)})`,
    );
    out(`searches refused, as /metrics counts them: ${refusedByServer}`);
    out(`\nmemory by part (MiB, from /metrics), before → after the load:`);
    for (const name of new Set([...memoryBefore.keys(), ...memoryAfter.keys()]))
      out(`  ${name}: ${mibOr(memoryBefore.get(name))} → ${mibOr(memoryAfter.get(name))}`);
    out(
      `server main thread's garbage collection during the load (s): ${Object.entries(gcDuringLoad)
        .map(([kind, s]) => `${kind} ${s}`)
        .join(', ')}`,
    );
    if (liveBefore && liveAfter) {
      out(`\nafter a full collection (heap snapshots ${liveBefore.file}, ${liveAfter.file}), before → after the load:`);
      out(`  server RSS: ${liveBefore.rssMiB} → ${liveAfter.rssMiB} MiB`);
      for (const name of new Set([...liveBefore.memory.keys(), ...liveAfter.memory.keys()]))
        out(`  ${name}: ${mibOr(liveBefore.memory.get(name))} → ${mibOr(liveAfter.memory.get(name))}`);
    }
    const saved = saveResult(process.env.BENCH_LOAD_NAME ? `load-${process.env.BENCH_LOAD_NAME}` : 'load', {
      cores: availableParallelism(),
      config: {
        seconds: SECONDS,
        searchers: SEARCHERS,
        uploaders: UPLOADERS,
        heavySearchers: HEAVY_SEARCHERS,
        heavySeconds: HEAVY_SECONDS,
      },
      server: { checkout: root, env: serverEnv() },
      mixed,
      heavy,
      alone,
      catchUpMs: { mixed: catchUpMs, heavy: heavyCatchUpMs },
      rssMiB: {
        before: mib(rssBefore),
        afterMixed: mib(rssAfterMixed),
        growthMixed: mib(rssAfterMixed - rssBefore),
        after: mib(rssAfter),
        growth: mib(rssAfter - rssBefore),
      },
      refusedByServer,
      memoryBefore: Object.fromEntries(memoryBefore),
      memoryAfter: Object.fromEntries(memoryAfter),
      gcSeconds: gcDuringLoad,
      ...(liveBefore && liveAfter
        ? {
            live: {
              rssMiB: { before: liveBefore.rssMiB, after: liveAfter.rssMiB },
              memoryBefore: Object.fromEntries(liveBefore.memory),
              memoryAfter: Object.fromEntries(liveAfter.memory),
            },
          }
        : {}),
    });
    out(`saved to ${saved}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

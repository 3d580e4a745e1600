import { spawn } from 'child_process';
import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { Agent } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import { apiCall, freePort, memoryOf, saveResult, waitForServer } from './support';

/**
 * Load isolation: on the embedded default, 12 searchers and 4 uploaders share the server
 * for BENCH_LOAD_SECONDS (60); then searches alone at 16 concurrent. Prints the figures docs/benchmarks.md
 * lists: failed uploads, upload p99, search p99 and throughput, how long until every projection is
 * current after the load, and RSS growth, with the memory series of `/metrics` before and after (what grew).
 * Saved to bench/results/load[-BENCH_LOAD_NAME].json.
 */
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const SEARCHERS = Number(process.env.BENCH_LOAD_SEARCHERS ?? 12);
const UPLOADERS = Number(process.env.BENCH_LOAD_UPLOADERS ?? 4);
const UPLOAD_TIMEOUT_MS = 15_000;
/** BENCH_SERVER_ROOT: the checkout whose built server the bench starts (default this one), for A/B runs of two builds. */
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT || join(__dirname, '..', '..');
/** The memory series of `/metrics` the bench prints before and after the load (MiB), where the server reports them. */
const MEMORY_SERIES =
  /^(process_resident_memory_bytes|nodejs_heap_size_used_bytes|nodejs_external_memory_bytes|larder_[a-z_]*(memory|cache)_bytes(\{[^}]*\})?) /;

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

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

export async function loadBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-load-'));
  const key = `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const root = SERVER_ROOT;
  // BENCH_LOAD_SERVER_ARGS: extra node flags for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`)
  const serverArgs = (process.env.BENCH_LOAD_SERVER_ARGS ?? '').split(' ').filter(Boolean);
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
      },
      stdio: 'inherit',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const out = (s: string) => process.stdout.write(`${s}\n`);
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
    /** Searches one after another until `end`: each answered one's ms into `into`; answers how many failed. */
    const searchUntil = async (end: number, into: number[]) => {
      let errors = 0;
      while (Date.now() < end) {
        const t = performance.now();
        const r = await search(QUERIES[Math.floor(Math.random() * QUERIES.length)]).catch(() => ({
          status: 0,
          text: '',
        }));
        if (r.status === 200) into.push(performance.now() - t);
        else errors++;
      }
      return errors;
    };
    for (const q of QUERIES) await search(q); // every query's embedding is now cached
    const rssBefore = memoryOf(child.pid!).rss;
    const memoryBefore = await memorySeries(base);

    // mixed load
    const until = Date.now() + SECONDS * 1000;
    const searchMs: number[] = [];
    const uploadMs: number[] = [];
    let searchErrors = 0;
    let failedUploads = 0;
    const searcher = async () => {
      searchErrors += await searchUntil(until, searchMs);
    };
    let n = 0;
    const uploader = async () => {
      while (Date.now() < until) {
        const m = multipart(`load-${n++}.txt`, sentence(200));
        const t = performance.now();
        const r = await call(
          base,
          key,
          'POST',
          `/v1/stores/${store.id}/files/upload`,
          m.body,
          m.type,
          UPLOAD_TIMEOUT_MS,
        ).catch(() => ({ status: 0, text: '' }));
        if (r.status === 201) uploadMs.push(performance.now() - t);
        else failedUploads++;
      }
    };
    const t0 = performance.now();
    await Promise.all([...Array.from({ length: SEARCHERS }, searcher), ...Array.from({ length: UPLOADERS }, uploader)]);
    const mixedSeconds = (performance.now() - t0) / 1000;
    const loadEnded = performance.now();

    // every projection and reactor current again
    let catchUpMs = NaN;
    for (;;) {
      const r = await call(base, key, 'GET', '/health/ready').catch(() => null);
      const items = r
        ? ((JSON.parse(r.text) as { checks?: { projections?: { items?: Array<{ name: string; lag: number }> } } })
            .checks?.projections?.items ?? [])
        : [];
      if (items.length && items.every((p) => p.lag === 0)) {
        catchUpMs = performance.now() - loadEnded;
        break;
      }
      if (performance.now() - loadEnded > 120_000) break;
      await new Promise((r2) => setTimeout(r2, 100));
    }

    // searches alone, 16 concurrent
    const aloneMs: number[] = [];
    const aloneUntil = Date.now() + Math.min(20, SECONDS) * 1000;
    const t1 = performance.now();
    await Promise.all(Array.from({ length: 16 }, () => searchUntil(aloneUntil, aloneMs)));
    const aloneSeconds = (performance.now() - t1) / 1000;
    const rssAfter = memoryOf(child.pid!).rss;
    const memoryAfter = await memorySeries(base);

    const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
    out(
      `load: embedded default, ${SEARCHERS} searchers + ${UPLOADERS} uploaders for ${SECONDS} s, then 16 searchers alone`,
    );
    out(`| measure | value | target |`);
    out(`|---|---:|---:|`);
    out(
      `| uploads completed / failed (no 201 within ${UPLOAD_TIMEOUT_MS / 1000} s) | ${uploadMs.length} / ${failedUploads} | 0 failed |`,
    );
    out(`| upload p50 / p99 (ms) | ${f(pct(uploadMs, 50))} / ${f(pct(uploadMs, 99))} | p99 ≤ 2000 |`);
    out(
      `| searches during the mix: per second, p50 / p99 (ms), errors | ${(searchMs.length / mixedSeconds).toFixed(0)}, ${f(pct(searchMs, 50))} / ${f(pct(searchMs, 99))}, ${searchErrors} | — |`,
    );
    out(`| searches alone at 16 concurrent: per second | ${(aloneMs.length / aloneSeconds).toFixed(0)} | ≥ 400 |`);
    out(
      `| searches alone at 16 concurrent: p50 / p99 (ms) | ${f(pct(aloneMs, 50))} / ${f(pct(aloneMs, 99))} | p99 ≤ 250 |`,
    );
    out(`| every projection current after the load (ms) | ${f(catchUpMs)} | ≤ 5000 |`);
    out(
      `| server RSS before → after (MiB) | ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssAfter / 2 ** 20).toFixed(0)} (+${((rssAfter - rssBefore) / 2 ** 20).toFixed(0)}) | growth < 100 |`,
    );
    const mib = (x: number | undefined) => (x === undefined ? 'n/a' : (x / 2 ** 20).toFixed(1));
    out(`\nmemory by part (MiB, from /metrics), before → after the load:`);
    for (const name of new Set([...memoryBefore.keys(), ...memoryAfter.keys()]))
      out(`  ${name}: ${mib(memoryBefore.get(name))} → ${mib(memoryAfter.get(name))}`);
    const saved = saveResult(process.env.BENCH_LOAD_NAME ? `load-${process.env.BENCH_LOAD_NAME}` : 'load', {
      server: root,
      seconds: SECONDS,
      searchers: SEARCHERS,
      uploaders: UPLOADERS,
      uploads: { completed: uploadMs.length, failed: failedUploads, p50: pct(uploadMs, 50), p99: pct(uploadMs, 99) },
      mixedSearches: {
        perSecond: searchMs.length / mixedSeconds,
        p50: pct(searchMs, 50),
        p99: pct(searchMs, 99),
        errors: searchErrors,
      },
      aloneSearches: { perSecond: aloneMs.length / aloneSeconds, p50: pct(aloneMs, 50), p99: pct(aloneMs, 99) },
      catchUpMs,
      rssMiB: { before: rssBefore / 2 ** 20, after: rssAfter / 2 ** 20, growth: (rssAfter - rssBefore) / 2 ** 20 },
      memoryBefore: Object.fromEntries(memoryBefore),
      memoryAfter: Object.fromEntries(memoryAfter),
    });
    out(`saved to ${saved}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

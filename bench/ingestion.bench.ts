import { createHash, randomBytes } from 'crypto';
import { Dirent, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'fs';
import { availableParallelism, loadavg, tmpdir } from 'os';
import { basename, extname, join } from 'path';
import { EmbedBatcher } from '@larder/ai';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { envReaders } from '../apps/api/src/config/env';
import { loadLimitsConfig } from '../apps/api/src/config/limits';
import { loadModelsConfig } from '../apps/api/src/config/models';
import { freePort, memoryOf, saveResult, startServer, waitForServer } from './support';

const MiB = 1024 * 1024;
const ROOT = join(__dirname, '..', '..');
const TARGET = Number(process.env.BENCH_INGEST_MB ?? 1) * MiB;
/** BENCH_INGESTION_FILES: that many small files instead of BENCH_INGEST_MB of mixed ones. */
const FILES = Number(process.env.BENCH_INGESTION_FILES ?? 0);
const UPLOADERS = Math.max(1, Number(process.env.BENCH_INGESTION_UPLOADERS ?? 4));
const MAX_FILE = 48 * 1024;
/** BENCH_SERVER_ROOT: the checkout whose built server the bench starts (default this one): A/B runs of two builds with the same client. */
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT || ROOT;
const MAX_SMALL_FILE = 8 * 1024;

interface Doc {
  name: string;
  type: string;
  body: Buffer;
}

/**
 * A realistic mixed corpus found offline on this machine, chosen deterministically: the Markdown
 * READMEs, TypeScript declaration files, package.json files and licence texts that ship in
 * node_modules (real prose, real code, real JSON), plus the project's own PDF, DOCX, HTML and CSV
 * fixtures. Identical contents are taken once (the pipeline would not embed them twice anyway).
 */
function corpus(): Doc[] {
  const buckets: Record<string, Doc[]> = { md: [], ts: [], json: [], txt: [] };
  const seen = new Set<string>();
  const add = (bucket: string, path: string, name: string, type: string) => {
    let body: Buffer;
    try {
      if (statSync(path).size > MAX_FILE || statSync(path).size < 200) return;
      body = readFileSync(path);
    } catch {
      return;
    }
    const h = createHash('sha256').update(body).digest('hex');
    if (seen.has(h)) return;
    seen.add(h);
    buckets[bucket].push({ name, type, body });
  };
  const nm = join(ROOT, 'node_modules');
  const packages = readdirSync(nm)
    .flatMap((d) => (d.startsWith('@') ? readdirSync(join(nm, d)).map((s) => `${d}/${s}`) : [d]))
    .sort();
  for (const p of packages) {
    const dir = join(nm, p);
    const flat = p.replace('/', '__');
    add('md', join(dir, 'README.md'), `${flat}-README.md`, 'text/markdown');
    add('json', join(dir, 'package.json'), `${flat}-package.json`, 'application/json');
    add('txt', join(dir, 'LICENSE'), `${flat}-LICENSE.txt`, 'text/plain');
    for (const types of ['index.d.ts', 'dist/index.d.ts', 'lib/index.d.ts'])
      add('ts', join(dir, types), `${flat}-${basename(types)}`, 'text/x-typescript');
  }
  const fixtures = join(ROOT, 'test', 'fixtures', 'ingestion');
  const extra: Doc[] = ['report.pdf', 'handbook.docx', 'recipes.html', 'inventory.csv'].map((n) => ({
    name: n,
    type: {
      '.pdf': 'application/pdf',
      '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      '.html': 'text/html',
      '.csv': 'text/csv',
    }[extname(n)]!,
    body: readFileSync(join(fixtures, n)),
  }));
  // round robin over the kinds until the target size is reached
  const out: Doc[] = [...extra];
  let bytes = extra.reduce((n, d) => n + d.body.length, 0);
  for (let i = 0; bytes < TARGET; i++) {
    let any = false;
    for (const k of ['md', 'ts', 'md', 'json', 'txt']) {
      const d = buckets[k][i];
      if (!d || bytes >= TARGET) continue;
      out.push(d);
      bytes += d.body.length;
      any = true;
    }
    if (!any) break;
  }
  return out;
}

/**
 * `count` small files (200 B to 8 KiB) from all of node_modules, nested packages included, walked in a
 * fixed order: Markdown, type declarations, package.json files and licences, round robin over the
 * kinds, identical contents taken once.
 */
function smallFiles(count: number): Doc[] {
  const kinds: Array<[string, (name: string) => boolean, string]> = [
    ['md', (n) => n.toLowerCase().endsWith('.md'), 'text/markdown'],
    ['ts', (n) => n.endsWith('.d.ts'), 'text/x-typescript'],
    ['json', (n) => n === 'package.json', 'application/json'],
    ['txt', (n) => /^licen[cs]e(\.txt)?$/i.test(n), 'text/plain'],
  ];
  const buckets = new Map<string, Doc[]>(kinds.map(([k]) => [k, []]));
  const seen = new Set<string>();
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        walk(path);
        continue;
      }
      if (!e.isFile()) continue;
      const kind = kinds.find(([, test]) => test(e.name));
      if (!kind) continue;
      const size = statSync(path).size;
      if (size < 200 || size > MAX_SMALL_FILE) continue;
      const body = readFileSync(path);
      const h = createHash('sha256').update(body).digest('hex');
      if (seen.has(h)) continue;
      seen.add(h);
      const rel = path.slice(join(ROOT, 'node_modules').length + 1).replace(/\//g, '__');
      buckets.get(kind[0])!.push({ name: kind[0] === 'txt' ? `${rel}.txt` : rel, type: kind[2], body });
    }
  };
  walk(join(ROOT, 'node_modules'));
  const out: Doc[] = [];
  for (let i = 0; out.length < count; i++) {
    const before = out.length;
    for (const [k] of kinds) if (out.length < count && buckets.get(k)![i]) out.push(buckets.get(k)![i]);
    if (out.length === before) throw new Error(`node_modules holds only ${out.length} distinct small files`);
  }
  return out;
}

const fmt = (n: number, d = 1) => n.toFixed(d);

/** The embedded-batch series of one `/metrics` scrape: batches, texts and the seconds they took. */
async function embedSeries(base: string): Promise<{ batches: number; texts: number; seconds: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    batches: value('larder_ingestion_embed_batch_seconds_count'),
    texts: value('larder_ingestion_embedded_texts_total'),
    seconds: value('larder_ingestion_embed_batch_seconds_sum'),
  };
}

/**
 * CPU seconds a process has used (user + system, from /proc): all its threads, and its main thread
 * alone (the event loop; the embedded database and the model run in threads of their own). Less
 * moved by other work on the machine than wall time.
 */
function cpuOf(pid: number): { total: number; main: number } {
  const seconds = (path: string) => {
    const f = readFileSync(path, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  };
  return { total: seconds(`/proc/${pid}/stat`), main: seconds(`/proc/${pid}/task/${pid}/stat`) };
}

export async function ingestionBench(): Promise<void> {
  const docs = FILES > 0 ? smallFiles(FILES) : corpus();
  const other = SERVER_ROOT === ROOT ? '' : `-${basename(SERVER_ROOT)}`;
  const concurrency = process.env.LARDER_INGESTION_CONCURRENCY ? `-c${process.env.LARDER_INGESTION_CONCURRENCY}` : '';
  const label = `${FILES > 0 ? `files-${FILES}` : `mixed-${process.env.BENCH_INGEST_MB ?? 1}mb`}${concurrency}${other}`;
  const totalBytes = docs.reduce((n, d) => n + d.body.length, 0);
  const kinds = new Map<string, number>();
  for (const d of docs) kinds.set(d.type, (kinds.get(d.type) ?? 0) + 1);
  process.stdout.write(
    `\n## Ingestion: ${docs.length} files, ${fmt(totalBytes / MiB, 2)} MiB (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')})\n`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-ingest-'));
  const key = `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS: extra node flags for the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
  const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = startServer(SERVER_ROOT, { port, dataDir: join(dir, 'data'), key, nodeArgs: extra });
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${key}` };
  const json = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(`${base}${path}`, {
      ...init,
      headers: { ...headers, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    if (!r.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<Record<string, unknown>>;
  };
  try {
    await waitForServer(base, 180);
    const store = (await json('/v1/stores', { method: 'POST', body: JSON.stringify({ name: 'bench-ingestion' }) }))
      .id as string;

    // Every file is uploaded first (the files bench times uploads), then attached to the store in file
    // batches of 500 (the way a bulk load attaches): the timed pipeline runs from the first attach until
    // none is pending or in progress.
    const ids: string[] = new Array<string>(docs.length);
    const parallel = async (work: (i: number) => Promise<void>) => {
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < docs.length; i = next++) await work(i);
      };
      await Promise.all(Array.from({ length: UPLOADERS }, lane));
    };
    const u0 = performance.now();
    await parallel(async (i) => {
      const d = docs[i];
      const form = new FormData();
      form.append('file', new Blob([d.body], { type: d.type }), d.name);
      const r = await fetch(`${base}/v1/files`, { method: 'POST', body: form, headers });
      if (!r.ok) throw new Error(`upload ${d.name}: ${r.status}`);
      ids[i] = ((await r.json()) as { id: string }).id;
    });
    const t0 = performance.now();
    const cpu0 = cpuOf(child.pid!);
    for (let i = 0; i < ids.length; i += 500)
      await json(`/v1/vector_stores/${store}/file_batches`, {
        method: 'POST',
        body: JSON.stringify({ file_ids: ids.slice(i, i + 500) }),
      });
    const attached = performance.now();
    let counts: Record<string, number>;
    let peak = 0;
    for (;;) {
      counts = (await json(`/v1/stores/${store}`)).file_counts as Record<string, number>;
      peak = Math.max(peak, memoryOf(child.pid!).hwm);
      if (!counts.pending && !counts.in_progress) break;
      // a store's counts are an aggregate over its files: polled every 250 ms, so that the poll itself
      // takes little of the database the pipeline shares
      await new Promise((r) => setTimeout(r, 250));
    }
    const wall = performance.now() - t0;
    const cpu1 = cpuOf(child.pid!);
    const cpu = { total: cpu1.total - cpu0.total, main: cpu1.main - cpu0.main };
    peak = Math.max(peak, memoryOf(child.pid!).hwm);
    const batches = await embedSeries(base);

    const texts: string[] = [];
    let completedBytes = 0;
    for (let i = 0; i < ids.length; i++) {
      const f = await json(`/v1/stores/${store}/files/${ids[i]}?return_chunks=true`);
      if (f.status !== 'completed') continue;
      completedBytes += docs[i].body.length;
      for (const c of f.chunks as Array<{ text: string }>) texts.push(c.text);
    }
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));

    // The embedder alone on the same inputs, in this process, with the server stopped: the server's own
    // configuration (the same document sessions and threads) fed through the same batcher, every text at once.
    const { embedWorkers } = loadModelsConfig(process.env, envReaders(process.env));
    const embedder = new UseLiteEmbedder({ documentWorkers: embedWorkers.workers, threads: embedWorkers.threads });
    const alone = new EmbedBatcher(embedder, embedder.parallelism);
    await Promise.all(Array.from({ length: embedder.parallelism }, () => alone.embed(['warm up'])));
    const e0 = performance.now();
    await alone.embed(texts);
    const embedMs = performance.now() - e0;
    await embedder.close();

    const s = wall / 1000;
    const pipelineChunksPerS = texts.length / s;
    const rawChunksPerS = texts.length / (embedMs / 1000);
    const result = {
      corpus: label,
      files: docs.length,
      bytes: totalBytes,
      completed: counts.completed,
      failed: counts.failed,
      chunks: texts.length,
      uploaders: UPLOADERS,
      // another checkout's server may have other defaults
      ingestionConcurrency: other ? null : loadLimitsConfig(process.env, envReaders(process.env)).ingestionConcurrency,
      embedWorkers: embedWorkers.workers,
      embedThreads: embedWorkers.threads,
      cores: availableParallelism(),
      uploadSeconds: (t0 - u0) / 1000,
      attachSeconds: (attached - t0) / 1000,
      wallSeconds: s,
      filesPerSecond: docs.length / s,
      pipelineChunksPerSecond: pipelineChunksPerS,
      embedderAloneChunksPerSecond: rawChunksPerS,
      ratio: pipelineChunksPerS / rawChunksPerS,
      embedBatches: batches.batches,
      meanBatchTexts: batches.texts / batches.batches,
      meanBatchSeconds: batches.seconds / batches.batches,
      serverPeakRssMiB: peak / MiB,
      serverCpuSeconds: cpu.total,
      serverMainThreadCpuSeconds: cpu.main,
      loadAverage: loadavg()[0],
      at: new Date().toISOString(),
    };
    const rows: Array<[string, string]> = [
      ['files (completed / failed)', `${counts.completed} / ${counts.failed}`],
      ['chunks', String(texts.length)],
      ['upload, before the timed pipeline (s)', fmt(result.uploadSeconds, 2)],
      ['attach (s)', fmt(result.attachSeconds, 2)],
      ['first attach → all settled (s)', fmt(s, 2)],
      ['files/s', fmt(result.filesPerSecond, 2)],
      ['chunks/s (pipeline)', fmt(pipelineChunksPerS, 2)],
      ['MB/s', fmt(completedBytes / MiB / s, 3)],
      ['chunks/s (embedder alone, same inputs, same sessions)', fmt(rawChunksPerS, 2)],
      ['embedding time (embedder alone) / pipeline wall time', `${fmt((100 * embedMs) / wall)} %`],
      ['pipeline / embedder throughput', fmt(result.ratio, 2)],
      [
        'embedded batches (mean texts, mean s)',
        `${batches.batches} (${fmt(result.meanBatchTexts)}, ${fmt(result.meanBatchSeconds, 3)})`,
      ],
      ['server peak RSS (MiB)', fmt(peak / MiB, 0)],
      [
        'server CPU in the pipeline, all threads / main thread (ms per file)',
        `${fmt((1000 * cpu.total) / docs.length)} / ${fmt((1000 * cpu.main) / docs.length)}`,
      ],
    ];
    const w = Math.max(...rows.map((r) => r[0].length));
    process.stdout.write(
      `model: ${embedder.model} (${embedder.dimensions} dimensions), mode fast, ${result.ingestionConcurrency} files at once, ` +
        `${UPLOADERS} uploaders, ${embedWorkers.workers} document session(s) × ${embedWorkers.threads} thread(s), ` +
        `load average ${fmt(result.loadAverage, 2)}\n\n`,
    );
    process.stdout.write(`| ${'metric'.padEnd(w)} | value |\n|${'-'.repeat(w + 2)}|-------|\n`);
    for (const [k, v] of rows) process.stdout.write(`| ${k.padEnd(w)} | ${v} |\n`);
    // each corpus and variant under its own name: a run replaces only its own result
    saveResult(`ingestion-${label}`, { result });
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

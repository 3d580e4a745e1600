import { createHash, randomBytes } from 'crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { basename, extname, join } from 'path';
import { spawn } from 'child_process';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { freePort, memoryOf, waitForServer } from './support';

const MiB = 1024 * 1024;
const ROOT = join(__dirname, '..', '..');
const TARGET = Number(process.env.BENCH_INGEST_MB ?? 1) * MiB;
const MAX_FILE = 48 * 1024;

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

const fmt = (n: number, d = 1) => n.toFixed(d);

export async function ingestionBench(): Promise<void> {
  const docs = corpus();
  const totalBytes = docs.reduce((n, d) => n + d.body.length, 0);
  const kinds = new Map<string, number>();
  for (const d of docs) kinds.set(d.type, (kinds.get(d.type) ?? 0) + 1);
  process.stdout.write(
    `\n## Ingestion: ${docs.length} files, ${fmt(totalBytes / MiB, 2)} MiB (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')})\n`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-ingest-'));
  const key = `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/api/src/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      LARDER_DATA_DIR: join(dir, 'data'),
      LARDER_ROOT_KEY: key,
      LARDER_LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
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
    await waitForServer(base, 30);
    const store = (await json('/v1/stores', { method: 'POST', body: JSON.stringify({ name: 'bench-ingestion' }) }))
      .id as string;

    // Upload and attach every file, then wait until none is pending or in progress.
    const t0 = performance.now();
    const ids: string[] = [];
    for (const d of docs) {
      const form = new FormData();
      form.append('file', new Blob([d.body], { type: d.type }), d.name);
      const r = await fetch(`${base}/v1/files`, { method: 'POST', body: form, headers });
      if (!r.ok) throw new Error(`upload ${d.name}: ${r.status}`);
      const id = ((await r.json()) as { id: string }).id;
      await json(`/v1/stores/${store}/files`, { method: 'POST', body: JSON.stringify({ file_id: id }) });
      ids.push(id);
    }
    const uploaded = performance.now();
    let counts: Record<string, number>;
    let peak = 0;
    for (;;) {
      counts = (await json(`/v1/stores/${store}`)).file_counts as Record<string, number>;
      peak = Math.max(peak, memoryOf(child.pid!).hwm);
      if (!counts.pending && !counts.in_progress) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const wall = performance.now() - t0;
    peak = Math.max(peak, memoryOf(child.pid!).hwm);

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

    // The embedder alone on the same inputs, in this process, with the server stopped.
    const embedder = new UseLiteEmbedder();
    await embedder.embed(['warm up'], 'document');
    const e0 = performance.now();
    await embedder.embed(texts, 'document');
    const embedMs = performance.now() - e0;
    await embedder.close();

    const s = wall / 1000;
    const pipelineChunksPerS = texts.length / s;
    const rawChunksPerS = texts.length / (embedMs / 1000);
    const rows: Array<[string, string]> = [
      ['files (completed / failed)', `${counts.completed} / ${counts.failed}`],
      ['chunks', String(texts.length)],
      ['upload + attach (s)', fmt((uploaded - t0) / 1000, 2)],
      ['upload → all settled (s)', fmt(s, 2)],
      ['files/s', fmt(docs.length / s, 2)],
      ['chunks/s (pipeline)', fmt(pipelineChunksPerS, 2)],
      ['MB/s', fmt(completedBytes / MiB / s, 3)],
      ['chunks/s (embedder alone, same inputs)', fmt(rawChunksPerS, 2)],
      ['embedding time (embedder alone) / pipeline wall time', `${fmt((100 * embedMs) / wall)} %`],
      ['pipeline / embedder throughput', fmt(pipelineChunksPerS / rawChunksPerS, 2)],
      ['server peak RSS (MiB)', fmt(peak / MiB, 0)],
    ];
    const w = Math.max(...rows.map((r) => r[0].length));
    process.stdout.write(
      `model: ${embedder.model} (${embedder.dimensions} dimensions), mode fast, concurrency ${process.env.LARDER_INGESTION_CONCURRENCY ?? 2}\n\n`,
    );
    process.stdout.write(`| ${'metric'.padEnd(w)} | value |\n|${'-'.repeat(w + 2)}|-------|\n`);
    for (const [k, v] of rows) process.stdout.write(`| ${k.padEnd(w)} | ${v} |\n`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

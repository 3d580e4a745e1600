import { ChildProcess, spawn } from 'child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { Agent, request } from 'http';
import { createServer } from 'net';
import { cpus, loadavg } from 'os';
import { join } from 'path';

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/**
 * Starts the built server of the checkout at `root` on `port` with its own data directory and root key
 * (warnings only in the log); `nodeArgs` go to node before the server's module (e.g. `--cpu-prof`).
 */
export function startServer(
  root: string,
  o: { port: number; dataDir: string; key: string; nodeArgs?: string[]; env?: NodeJS.ProcessEnv },
): ChildProcess {
  return spawn(
    process.execPath,
    [...(o.nodeArgs ?? []), '-r', join(root, 'tools/paths.js'), join(root, 'dist/apps/api/src/main.js')],
    {
      env: {
        ...process.env,
        PORT: String(o.port),
        LARDER_DATA_DIR: o.dataDir,
        LARDER_ROOT_KEY: o.key,
        LARDER_LOG_LEVEL: 'warn',
        ...o.env,
      },
      stdio: 'inherit',
    },
  );
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Waits until the server at `base` answers `GET /` (100 ms steps, at most `seconds`). */
export async function waitForServer(base: string, seconds = 60): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/`)).ok) return;
    } catch {
      if (i > seconds * 10) throw new Error('server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One API call over a kept-alive node:http agent (the numbers are the server's, not a client
 * library's): the key as a bearer token, the body as given, the answer's status and text.
 */
export function apiCall(
  agent: Agent,
  base: string,
  key: string,
  method: string,
  path: string,
  body?: Buffer,
  type = 'application/json',
  timeoutMs = 60_000,
): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body ? { 'content-type': type, 'content-length': body.length } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`${method} ${url.pathname}: no answer within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A `Server-Timing` header as step → milliseconds (`embed;dur=3.20, search;dur=9.81`). */
export function parseServerTiming(header: string | string[] | null | undefined): Record<string, number> {
  const text = Array.isArray(header) ? header.join(', ') : (header ?? '');
  return Object.fromEntries(
    text
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map((x) => [x.split(';')[0], Number(/dur=([\d.]+)/.exec(x)?.[1] ?? NaN)]),
  );
}

/**
 * The API's own time of one search request, from its `Server-Timing` steps (ms), by two definitions:
 *
 * - `endpoint` / `server`: endpoint − index − embedding, as the issue words it: the time at the client
 *   (`endpoint`) or the server's `total` (`server`: from its first middleware to its JSON body) less the
 *   query's embedding (`embed`, the whole step: the stores and rules lookup runs beside it), the dense
 *   search (`dense`, on the event loop), what the lexical search (in the read worker, beside the
 *   embedding and the dense search) took after the dense one (`lexical_wait`), the index's reading of the
 *   answer's chunks (`hydrate`: before, the searches read every candidate's) and a reranker's `rerank`.
 * - `critical`: stricter, the server's `total` less only what the request waited for on its path:
 *   `embed_wait` (the embedding still running once the stores were looked up) instead of `embed`. Work
 *   that overlaps the embedding counts as the API's here, and so does the time the event loop loses to
 *   the embedding's and the read worker's threads when they take its core (on 2 cores, most of it).
 */
export function ownTime(
  steps: Record<string, number>,
  clientMs?: number,
): { endpoint: number; server: number; critical: number } {
  const index = (steps.dense ?? 0) + (steps.lexical_wait ?? 0) + (steps.hydrate ?? 0) + (steps.rerank ?? 0);
  const total = steps.total ?? NaN;
  return {
    endpoint: clientMs === undefined ? NaN : clientMs - (steps.embed ?? 0) - index,
    server: total - (steps.embed ?? 0) - index,
    critical: total - (steps.embed_wait ?? 0) - index,
  };
}

/** One table a bench printed: its header cells, which columns align right, and its rows. */
export interface BenchTable {
  columns: string[];
  right: boolean[];
  rows: string[][];
}

/** What `npm run bench -- <name>` saves to `bench/results/<name>.json`. */
export interface BenchResult {
  bench: string;
  date: string;
  machine: { cores: number; cpu: string; loadAverage: number[]; node: string };
  /** The variables that change a run (`BENCH_*`, `LARDER_*`, `LEXICAL_BENCH_*`) as they were set; a secret's value is never saved. */
  settings: Record<string, string>;
  /** The Markdown tables the bench printed, in order. */
  tables: BenchTable[];
  [figures: string]: unknown;
}

export const RESULTS_DIR = join(__dirname, '..', '..', 'bench', 'results');

/** The Markdown tables in a bench's printed text (`| a | b |` lines under a `|---|---:|` rule). */
export function printedTables(text: string): BenchTable[] {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const isRule = (line: string) => line.trim().startsWith('|') && cells(line).every((c) => /^:?-+:?$/.test(c));
  const lines = text.split('\n');
  const tables: BenchTable[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!isRule(lines[i]) || !lines[i - 1].trim().startsWith('|')) continue;
    const table: BenchTable = {
      columns: cells(lines[i - 1]),
      right: cells(lines[i]).map((c) => c.endsWith(':')),
      rows: [],
    };
    while (lines[i + 1]?.trim().startsWith('|')) table.rows.push(cells(lines[++i]));
    tables.push(table);
  }
  return tables;
}

/** A table as Markdown (the shape docs/benchmarks.md uses). */
export function markdownTable(t: BenchTable): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rule = `|${t.columns.map((_, i) => (t.right[i] ? '---:' : '---')).join('|')}|`;
  return [line(t.columns), rule, ...t.rows.map(line)].join('\n');
}

const written = new Map<string, BenchResult>();

/** The names of the results saved so far in this process. */
export function savedResultNames(): string[] {
  return [...written.keys()];
}

/**
 * Saves a bench's figures to `bench/results/<name>.json` with the date, the machine (cores, CPU, load
 * average, Node) and the settings of the run; a second save of the same name in one run adds to the first.
 */
export function saveResult(name: string, figures: Partial<BenchResult> & Record<string, unknown>): string {
  const settings = Object.fromEntries(
    Object.entries(process.env)
      .filter(([k]) => /^(BENCH_|LARDER_|LEXICAL_BENCH_)/.test(k) && k !== 'LARDER_PROCESS_TEMP_TOKEN')
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, /KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL/i.test(k) ? '(set)' : v]),
  ) as Record<string, string>;
  const result: BenchResult = {
    ...written.get(name),
    bench: name,
    date: new Date().toISOString(),
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      loadAverage: loadavg(),
      node: process.version,
    },
    settings,
    tables: [],
    ...figures,
  };
  written.set(name, result);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(path, JSON.stringify(result, null, 2) + '\n');
  return path;
}

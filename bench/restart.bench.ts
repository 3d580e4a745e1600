import { randomBytes } from 'crypto';
import { spawn } from 'child_process';
import { Agent } from 'http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { prefetchIvf } from '@larder/chunk-index/embedded/ivf.prefetch';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { apiCall, freePort, saveResult, waitForServer } from './support';
import { corpus, DIMS, fill, MODEL, serverEnv, syntheticEmbeddings } from './search-speed.bench';

const N = Number(process.env.BENCH_RESTART_CHUNKS ?? 1_000_000);
const RESTARTS = Number(process.env.BENCH_RESTART_TIMES ?? 3);
/** Opt-in: the data directories are kept there and reused by the next run with the same chunk count (a 1M fill takes long). */
const KEEP_DIR = process.env.BENCH_RESTART_DIR || null;
const ROOT = join(__dirname, '..', '..');
/**
 * BENCH_RESTART_SERVERS: checkouts (comma-separated roots, each built) whose servers are started in
 * turn on the same data, start by start, for an A/B comparison in the same minutes; default this one.
 */
const SERVERS = (process.env.BENCH_RESTART_SERVERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

/**
 * BENCH_RESTART_NPM=1: the timed starts run `npm start` in the checkout (what an operator runs: the build
 * check of tools/build-if-stale.js, then the server) instead of node on the built server; its figures
 * are saved as `restart-npm`. The build must be current (`npm run build`), or the first start builds.
 */
const VIA_NPM = process.env.BENCH_RESTART_NPM === '1';

/**
 * How long a server restart takes with `BENCH_RESTART_CHUNKS` chunks in its embedded index: the
 * synthetic corpus of the search-speed bench is written straight into the server's index, the server
 * is stopped, then started again `BENCH_RESTART_TIMES` times; each start is timed from spawning the
 * process to its first answer to `GET /` and to its first successful `POST /v1/stores/search`. The
 * index's open alone (what a start pays for the index: schema check, IVF lists read) is timed too, and
 * a start of the same server with an empty store beside it, for what a start costs whatever the index.
 * With `BENCH_RESTART_DIR` the filled directories are kept there, and a later run with the same
 * `BENCH_RESTART_CHUNKS` starts the servers on them instead of filling again.
 */
export async function restartBench(): Promise<void> {
  process.stdout.write(`\n## Restart: ${N.toLocaleString('en')} chunks, ${DIMS}-d synthetic vectors, embedded index\n`);
  const dir = KEEP_DIR ?? mkdtempSync(join(tmpdir(), 'larder-bench-restart-'));
  const marker = join(dir, 'filled.json');
  type Filled = { chunks: number; key: string; storeId: string; emptyStore: string };
  const kept: Filled | null =
    KEEP_DIR && existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as Filled) : null;
  const reuse = kept?.chunks === N ? kept : null;
  if (KEEP_DIR && !reuse) {
    for (const sub of ['data', 'empty', 'filled.json']) rmSync(join(dir, sub), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const embeddings = await syntheticEmbeddings();
  const key = reuse?.key ?? `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // the server's logs at level log, for its start timeline (`started in …`); its warnings and errors pass through
  const envOf = (dataDir: string) => ({ ...serverEnv(port, dataDir, key, embeddings.url), LARDER_LOG_LEVEL: 'log' });
  const spawnServer = (dataDir: string, root = ROOT, npm = false) => {
    // BENCH_SERVER_NODE_ARGS: extra node flags for the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
    const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    // through npm, the server is a grandchild: its own process group, stopped as a group
    const child = npm
      ? spawn('npm', ['start', '--silent'], {
          cwd: root,
          env: { ...envOf(dataDir), NODE_OPTIONS: extra.join(' ') },
          stdio: ['ignore', 'pipe', 'inherit'],
          detached: true,
        })
      : spawn(
          process.execPath,
          [...extra, '-r', join(root, 'tools/paths.js'), join(root, 'dist/apps/api/src/main.js')],
          {
            env: envOf(dataDir),
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
    /** The server's start timeline (`started in …`) and its first search's line. */
    const log: string[] = [];
    let rest = '';
    child.stdout.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        // eslint-disable-next-line no-control-regex
        const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
        const m = /(started in|first search answered) (.*)$/.exec(plain);
        if (m) log.push(`${m[1]} ${m[2]}`);
        else if (/\b(WARN|ERROR)\b/.test(plain)) process.stdout.write(`${plain}\n`);
      }
    });
    return { child, log };
  };
  const stop = (child: ReturnType<typeof spawn>) =>
    new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      const signal = (s: NodeJS.Signals) =>
        child.spawnargs[0] === 'npm' ? process.kill(-child.pid!, s) : child.kill(s);
      const kill = setTimeout(() => signal('SIGKILL'), 30_000);
      // its output read to the end (the first search's log line)
      child.once('close', () => (clearTimeout(kill), r()));
      signal('SIGTERM');
    });
  /** A store in a fresh server at `dataDir`, the server stopped again. */
  const createStore = async (dataDir: string) => {
    const { child } = spawnServer(dataDir);
    await waitForServer(base, 120);
    const agent = new Agent({ keepAlive: false });
    const res = await apiCall(
      agent,
      base,
      key,
      'POST',
      '/v1/stores',
      Buffer.from(JSON.stringify({ name: 'bench-restart' })),
    );
    agent.destroy();
    await stop(child);
    if (res.status >= 300) throw new Error(`creating a store: ${res.status} ${res.text}`);
    return (JSON.parse(res.text) as { id: string }).id;
  };
  /** Spawns the server and polls until it answers: ms to `GET /` and to a successful search. */
  const timeStart = async (dataDir: string, storeId: string, root = ROOT) => {
    const t0 = performance.now();
    const { child, log } = spawnServer(dataDir, root, VIA_NPM);
    const agent = new Agent({ keepAlive: false });
    let listening = NaN;
    const body = Buffer.from(JSON.stringify({ query: 'w1x w2x', store_identifiers: [storeId], top_k: 10 }));
    try {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
        if (performance.now() - t0 > 600_000) throw new Error('no search answer within 10 minutes');
        try {
          if (Number.isNaN(listening) && (await fetch(`${base}/`)).ok) listening = performance.now() - t0;
          const res = await apiCall(agent, base, key, 'POST', '/v1/stores/search', body, 'application/json', 60_000);
          if (res.status === 200 && (JSON.parse(res.text) as { data: unknown[] }).data.length)
            return { listening, searched: performance.now() - t0, log };
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      agent.destroy();
      await stop(child);
    }
  };
  try {
    const dataDir = join(dir, 'data');
    const emptyDir = join(dir, 'empty');
    const storeId = reuse?.storeId ?? (await createStore(dataDir));
    const path = join(dataDir, 'chunk-index', 'chunks.sqlite');
    const f0 = performance.now();
    if (!reuse) {
      const index = new SqliteChunkIndex(path, { readWorker: false });
      await fill(index, storeId, corpus(), N, false, (n) => {
        if (n % 100_000 === 0)
          process.stdout.write(
            `  ${n.toLocaleString('en')} chunks written (${((performance.now() - f0) / 1000).toFixed(0)} s)\n`,
          );
      });
      await index.close();
    }
    const size = ['', '-wal'].reduce((s, x) => {
      try {
        return s + statSync(path + x).size;
      } catch {
        return s;
      }
    }, 0);
    process.stdout.write(
      reuse
        ? `index reused from ${dataDir} (${(size / 2 ** 30).toFixed(2)} GiB)\n`
        : `index filled in ${((performance.now() - f0) / 1000).toFixed(1)} s (${(size / 2 ** 30).toFixed(2)} GiB)\n`,
    );

    // the index's open alone, as a start does it (file opened, schema checked, IVF lists read)
    const opens: string[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      const o0 = performance.now();
      const reopened = new SqliteChunkIndex(path);
      await reopened.setup();
      const opened = performance.now() - o0;
      const q = corpus().vector();
      const s0 = performance.now();
      const hits = await reopened.searchDense({ storeIds: [storeId], vector: q, topK: 10, model: MODEL });
      const first = performance.now() - s0;
      const { ms, from, vectors } = reopened.ivfLoad;
      await reopened.close();
      if (hits.length !== 10) throw new Error(`reopened index answered ${hits.length} hits`);
      opens.push(
        `${(opened / 1000).toFixed(2)} s (IVF: ${vectors.toLocaleString('en')} vectors ${from === 'persisted' ? 'read from their persisted lists' : 'rebuilt from the vectors'} in ${(ms / 1000).toFixed(2)} s; first dense search ${first.toFixed(1)} ms)`,
      );
    }
    process.stdout.write(`index open alone: ${opens.join('; ')}\n`);

    // the same, with the lists built in a worker thread (as a start does, beside its module loading): what the open's own thread spends
    const prefetched: string[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      const o0 = performance.now();
      const reopened = new SqliteChunkIndex(path, { ivfPrefetch: prefetchIvf(path, 0) });
      await reopened.setup();
      const opened = performance.now() - o0;
      const { ms, prefetched: worker, waited } = reopened.ivfLoad;
      const hits = await reopened.searchDense({
        storeIds: [storeId],
        vector: corpus().vector(),
        topK: 10,
        model: MODEL,
      });
      await reopened.close();
      if (hits.length !== 10) throw new Error(`reopened index answered ${hits.length} hits`);
      if (worker === null) throw new Error('the lists read in the worker were not taken');
      prefetched.push(
        `${(opened / 1000).toFixed(2)} s (worker ${(worker / 1000).toFixed(2)} s, waited for ${(waited / 1000).toFixed(2)} s; lists taken over in ${ms.toFixed(0)} ms)`,
      );
    }
    process.stdout.write(`index open, lists built in a worker: ${prefetched.join('; ')}\n`);

    // a start with an empty store: what a start costs whatever the index holds
    let emptyStore = reuse?.emptyStore;
    if (!emptyStore) {
      emptyStore = await createStore(emptyDir);
      const emptyIndex = new SqliteChunkIndex(join(emptyDir, 'chunk-index', 'chunks.sqlite'), { readWorker: false });
      await fill(emptyIndex, emptyStore, corpus(), 100, false);
      await emptyIndex.close();
      if (KEEP_DIR) writeFileSync(marker, JSON.stringify({ chunks: N, key, storeId, emptyStore } satisfies Filled));
    }

    const roots = SERVERS.length ? SERVERS : [ROOT];
    const label = (root: string) => (roots.length > 1 ? `${root}: ` : '');
    const rows: string[] = [];
    const starts: Array<Record<string, string | number>> = [];
    for (let i = 0; i < RESTARTS; i++) {
      // with several servers, each start's order alternates (no build always runs right after the fill or another's start)
      const order = i % 2 ? [...roots].reverse() : roots;
      for (const root of order) {
        const full = await timeStart(dataDir, storeId, root);
        const small = await timeStart(emptyDir, emptyStore, root);
        process.stdout.write(
          `${label(root)}start ${i + 1}, ${N.toLocaleString('en')} chunks: ${full.log.join('; ') || '?'}\n           100 chunks: ${small.log.join('; ') || '?'}\n`,
        );
        starts.push({
          server: root,
          start: i + 1,
          listeningS: full.listening / 1000,
          firstSearchS: full.searched / 1000,
          smallListeningS: small.listening / 1000,
          smallFirstSearchS: small.searched / 1000,
          log: full.log.join('; '),
          smallLog: small.log.join('; '),
        });
        rows.push(
          `| ${roots.length > 1 ? `${root} | ` : ''}${i + 1} | ${(full.listening / 1000).toFixed(2)} | ${(full.searched / 1000).toFixed(2)} | ${(small.listening / 1000).toFixed(2)} | ${(small.searched / 1000).toFixed(2)} |`,
        );
      }
    }
    const serverColumn = roots.length > 1 ? ['server | ', '---|'] : ['', ''];
    process.stdout.write(
      `\n| ${serverColumn[0]}start | ${N.toLocaleString('en')} chunks: GET / s | ${N.toLocaleString('en')} chunks: first search s | 100 chunks: GET / s | 100 chunks: first search s |\n|${serverColumn[1]}---|---:|---:|---:|---:|\n${rows.join('\n')}\n\n`,
    );
    saveResult(VIA_NPM ? 'restart-npm' : 'restart', { chunks: N, viaNpm: VIA_NPM, starts });
  } finally {
    embeddings.close();
    if (!KEEP_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

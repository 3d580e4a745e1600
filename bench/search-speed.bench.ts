import { createHash, randomBytes } from 'crypto';
import { spawn } from 'child_process';
import { Agent as HttpAgent, createServer as createHttpServer, request as httpRequest } from 'http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { RM3_FEEDBACK } from '@larder/chunk-index/embedded/sqlite.options';
import { ChunkIndexOp } from '@larder/chunk-index';
import { fuse } from '@larder/search/ranking';
import { DEFAULT_FUSION } from '../apps/api/src/config/search';
import { freePort, ownTime, parseServerTiming, waitForServer } from './support';
import { seededRandom } from '@larder/kernel/random';

const N = Number(process.env.BENCH_SEARCH_CHUNKS ?? 100_000);
export const DIMS = 384;
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 200);
/** Files (100 chunks each) written per transaction by `fill`: 1 as one file's events apply, more as a projection's catch-up batch applies. */
const FILL_FILES = Math.max(1, Number(process.env.BENCH_SEARCH_FILL_FILES ?? 1));
/** BENCH_SEARCH_FILL_ONLY=1: time the fill and stop (no queries). */
const FILL_ONLY = process.env.BENCH_SEARCH_FILL_ONLY === '1';
/**
 * BENCH_SEARCH_ENDPOINT_ONLY=1: only the index's hybrid query and the search endpoint (the API's overhead
 * over the index, for A/B runs): no other index rows, recall, reopening or grep.
 */
const ENDPOINT_ONLY = process.env.BENCH_SEARCH_ENDPOINT_ONLY === '1';
/** Queries (other words than the measured ones) answered before each measured pass: BENCH_SEARCH_WARMUP. */
const WARMUP = Math.max(0, Number(process.env.BENCH_SEARCH_WARMUP ?? 50));
export const MODEL = 'bench-synthetic-384';
const ROOT = join(__dirname, '..', '..');
/** BENCH_SERVER_ROOT: the checkout whose built server the bench starts (default this one): A/B runs of two builds with the same client. */
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT || ROOT;

/** Deterministic PRNG (mulberry32) and a standard normal from it. */
export function rng(seed: number) {
  const next = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  return { next, normal };
}

const normalize = (v: Float32Array) => {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
};

/** Synthetic corpus: Zipf-distributed words over a 20k vocabulary, vectors from 512 Gaussian clusters. */
export function corpus() {
  const r = rng(42);
  const vocab = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(r.next() * Math.log(vocab.length))) - 1)];
  const centers = Array.from({ length: 512 }, () => normalize(Float32Array.from({ length: DIMS }, () => r.normal())));
  const vector = () => {
    const c = centers[Math.floor(r.next() * centers.length)];
    return normalize(Float32Array.from(c, (x) => x + r.normal() * 0.06));
  };
  const text = (n: number) => Array.from({ length: n }, zipf).join(' ');
  return { vocab, text, vector, r };
}

export const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (x: number) => x.toFixed(2);

/** An OpenAI-compatible embeddings endpoint answering synthetic 384-d vectors (stands for a remote model). */
export async function syntheticEmbeddings(): Promise<{ url: string; close: () => void }> {
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      const data = input.map((t, index) => {
        const h = createHash('sha256').update(t).digest();
        const r = rng(h.readUInt32LE(0));
        return {
          object: 'embedding',
          index,
          embedding: Array.from(normalize(Float32Array.from({ length: DIMS }, () => r.normal()))),
        };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: MODEL, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}/v1`, close: () => server.close() };
}

/** The environment of a bench server on the embedded default whose query vectors come from the synthetic endpoint. */
export function serverEnv(port: number, dataDir: string, key: string, embeddingsUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    LARDER_DATA_DIR: dataDir,
    LARDER_ROOT_KEY: key,
    LARDER_LOG_LEVEL: 'warn',
    LARDER_EMBEDDER: 'openai',
    LARDER_EMBEDDING_URL: embeddingsUrl,
    LARDER_EMBEDDING_MODEL: MODEL,
    LARDER_EMBEDDING_DIMENSIONS: String(DIMS),
  };
}

/** Every vector written, in one matrix (for exact ground truth), with its (file, chunk) key. */
interface Written {
  matrix: Float32Array;
  keys: string[];
}

/** The bench's queries (after the corpus is drawn): three words (ranks < 2000, < 200, < 20) and a vector. */
/** Three-word queries (words of ranks < 2000, < 200, < 20) drawn with `seed`, their vectors drawn from the corpus (or given by `vectorOf`). */
export function benchQueries(
  c: ReturnType<typeof corpus>,
  count: number,
  seed = 7,
  vectorOf: (i: number) => Float32Array = () => c.vector(),
): Array<{ text: string; vector: Float32Array }> {
  const qr = rng(seed);
  return Array.from({ length: count }, (_, i) => ({
    text: `${c.vocab[Math.floor(qr.next() * 2000)]} ${c.vocab[Math.floor(qr.next() * 200)]} ${c.vocab[Math.floor(qr.next() * 20)]}`,
    vector: vectorOf(i),
  }));
}

/** The corpus's chunks file by file (100 a file), in the order `fill` writes them: a file's texts, then its vectors. */
export function* corpusFiles(
  c: ReturnType<typeof corpus>,
  n: number,
): Generator<{ f: number; fileId: string; texts: string[]; vectors: Float32Array[] }> {
  const perFile = 100;
  for (let f = 0; f * perFile < n; f++) {
    const count = Math.min(perFile, n - f * perFile);
    const texts = Array.from({ length: count }, () => c.text(40));
    const vectors = texts.map(() => c.vector());
    yield { f, fileId: `00000000-0000-4000-8000-${f.toString(16).padStart(12, '0')}`, texts, vectors };
  }
}

/** The chunk index ops that write one corpus file (file, chunks, vectors). */
export function fileOps(
  storeId: string,
  file: { f: number; fileId: string; texts: string[]; vectors: Float32Array[] },
  model = MODEL,
): ChunkIndexOp[] {
  const { f, fileId } = file;
  const chunks = file.texts.map((text, i) => ({
    chunkIndex: i,
    type: 'text' as const,
    text,
    offset: i * 300,
    mimeType: 'text/plain',
    generatedMetadata: { type: 'text' },
  }));
  return [
    {
      op: 'putFile',
      file: {
        storeId,
        fileId,
        organizationId: storeId,
        filename: `doc-${f}.txt`,
        externalId: null,
        metadata: { shard: f % 10 },
        generation: 1,
      },
    },
    { op: 'setChunks', storeId, fileId, generation: 1, chunks },
    { op: 'setVectors', storeId, fileId, generation: 1, model, vectors: file.vectors },
  ];
}

/**
 * The dense top-10 of each query right after a write to its store (a file of two chunks added; only the
 * search is timed), as searches run beside uploads; the files added are deleted after.
 */
async function denseAfterWrites(
  index: SqliteChunkIndex,
  storeId: string,
  queries: Array<{ vector: Float32Array }>,
): Promise<{ p50: number; p99: number; qps: number }> {
  let seq = 1n << 40n;
  const cp = () => ({ projection: 'bench-writes', version: 1, position: { commit: ++seq, prepare: seq } });
  const added: string[] = [];
  const ms: number[] = [];
  for (const [i, q] of queries.entries()) {
    const fileId = `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;
    await index.write(
      fileOps(storeId, { f: i, fileId, texts: ['added', 'added'], vectors: [q.vector, q.vector] }),
      cp(),
    );
    added.push(fileId);
    const s = performance.now();
    await index.searchDense({ storeIds: [storeId], topK: 10, vector: q.vector, model: MODEL });
    ms.push(performance.now() - s);
  }
  await index.write(
    added.map((fileId) => ({ op: 'deleteFile' as const, storeId, fileId })),
    cp(),
  );
  return { p50: pct(ms, 50), p99: pct(ms, 99), qps: ms.length / (ms.reduce((a, b) => a + b, 0) / 1000) };
}

/** Writes `n` chunks (100 per file, `files` files a transaction) of the corpus into the index; keeps every vector for an exact scan when `keep`. */
export async function fill(
  index: SqliteChunkIndex,
  storeId: string,
  c: ReturnType<typeof corpus>,
  n = N,
  keep = true,
  progress?: (done: number) => void,
  files = FILL_FILES,
): Promise<Written> {
  const matrix = new Float32Array(keep ? n * DIMS : 0);
  const keys: string[] = [];
  await index.setup();
  let seq = 0n;
  let ops: ChunkIndexOp[] = [];
  let batched = 0;
  const write = async () => {
    await index.write(ops, { projection: 'bench', version: 1, position: { commit: ++seq, prepare: seq } });
    ops = [];
    batched = 0;
  };
  for (const file of corpusFiles(c, n)) {
    if (keep) {
      for (const [i, v] of file.vectors.entries()) {
        matrix.set(v, keys.length * DIMS);
        keys.push(`${file.fileId}:${i}`);
      }
    }
    ops.push(...fileOps(storeId, file));
    if (++batched >= files) await write();
    if (progress && (file.f + 1) % 1000 === 0) progress((file.f + 1) * 100);
  }
  if (ops.length) await write();
  return { matrix, keys };
}

/** recall@10 of the index's dense answers against an exact scan of every vector. */
async function recallAt10(
  index: SqliteChunkIndex,
  storeId: string,
  written: Written,
  queries: Float32Array[],
): Promise<number> {
  let hit = 0;
  for (const q of queries) {
    const top: Array<[number, number]> = [];
    for (let i = 0; i < written.keys.length; i++) {
      let s = 0;
      const o = i * DIMS;
      for (let d = 0; d < DIMS; d++) s += written.matrix[o + d] * q[d];
      if (top.length < 10 || s > top[top.length - 1][0]) {
        top.push([s, i]);
        top.sort((a, b) => b[0] - a[0]);
        if (top.length > 10) top.pop();
      }
    }
    const want = new Set(top.map(([, i]) => written.keys[i]));
    const got = await index.searchDense({ storeIds: [storeId], vector: q, topK: 10, model: MODEL });
    hit += got.filter((g) => want.has(`${g.fileId}:${g.chunkIndex}`)).length;
  }
  return hit / (queries.length * 10);
}

export async function searchSpeedBench(): Promise<void> {
  process.stdout.write(
    `\n## Search speed: ${N.toLocaleString('en')} chunks, ${DIMS}-d synthetic vectors (512 clusters), 40-word Zipf texts, ${QUERIES} queries\n`,
  );
  // BENCH_SEARCH_DIR: keep the filled data directory there and reuse it when it holds a filled index of N chunks (fill once, measure often)
  const keepDir = process.env.BENCH_SEARCH_DIR || null;
  if (keepDir) mkdirSync(keepDir, { recursive: true });
  const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'larder-bench-speed-'));
  const markFile = join(dir, 'bench-fill.json');
  const kept =
    keepDir && existsSync(markFile)
      ? (JSON.parse(readFileSync(markFile, 'utf8')) as { n: number; storeId: string; key: string })
      : null;
  if (kept && kept.n !== N) throw new Error(`${dir} holds ${kept.n} chunks, not ${N}: use another BENCH_SEARCH_DIR`);
  if (keepDir && !kept) rmSync(join(dir, 'data'), { recursive: true, force: true });
  const embeddings = await syntheticEmbeddings();
  const key = kept?.key ?? `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const env = serverEnv(port, join(dir, 'data'), key, embeddings.url);
  const start = async () => {
    // BENCH_SERVER_NODE_ARGS: extra node flags for the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
    const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(
      process.execPath,
      [...extra, '-r', join(SERVER_ROOT, 'tools/paths.js'), join(SERVER_ROOT, 'dist/apps/api/src/main.js')],
      { env, stdio: 'inherit' },
    );
    await waitForServer(`http://127.0.0.1:${port}`, 60);
    return child;
  };
  const stop = (child: ReturnType<typeof spawn>) => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
  /** Each search request's `Server-Timing` steps and its time at the client (ms). */
  const searches: Array<{ steps: Record<string, number>; ms: number }> = [];
  // A kept-alive node:http client: the numbers are the server's, not a client library's (fetch adds ~0.6 ms here).
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string, body: unknown) =>
    new Promise<{ data?: unknown[]; id?: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const t = performance.now();
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${path}: ${res.statusCode} ${text}`));
            // the search requests' steps only (grep answers carry their own `grep` step)
            if (path === '/v1/stores/search')
              searches.push({ steps: parseServerTiming(res.headers['server-timing']), ms: performance.now() - t });
            resolve(JSON.parse(text) as { data?: unknown[]; id?: string });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  let child = await start();
  try {
    const storeId: string = kept?.storeId ?? ((await post('/v1/stores', { name: 'bench-speed' })).id as string);
    await stop(child);

    // Fill the server's own embedded index directly (the pipeline is measured by the ingestion bench).
    const c = corpus();
    const t0 = performance.now();
    // the server's lexical preload setting, if given, for the index's own rows too
    const preloadMb = process.env.LARDER_SEARCH_LEXICAL_PRELOAD_MB;
    const index = new SqliteChunkIndex(join(dir, 'data', 'chunk-index', 'chunks.sqlite'), {
      ivfProbes: Number(process.env.LARDER_IVF_PROBES ?? 16),
      ...(preloadMb ? { lexicalPreloadBytes: Number(preloadMb) * 2 ** 20 } : {}),
    });
    let written: Written;
    if (kept) {
      // the corpus drawn again (the queries are drawn after it), not written: the index already holds it
      await index.setup();
      // (an endpoint-only run skips it: its queries' words are drawn apart from the corpus, and their
      // vectors, which only the index's hybrid rows use, then come from the corpus's clusters undrawn)
      written = { matrix: new Float32Array(ENDPOINT_ONLY ? 0 : N * DIMS), keys: [] };
      if (!ENDPOINT_ONLY)
        for (const file of corpusFiles(c, N))
          for (const [i, v] of file.vectors.entries()) {
            written.matrix.set(v, written.keys.length * DIMS);
            written.keys.push(`${file.fileId}:${i}`);
          }
      process.stdout.write(
        `index reused from ${dir} (corpus drawn again in ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
      );
    } else {
      written = await fill(index, storeId, c, N, !FILL_ONLY);
      process.stdout.write(
        `index filled in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${FILL_FILES} file${FILL_FILES > 1 ? 's' : ''} (${FILL_FILES * 100} chunks) a transaction (IVF lists trained and assigned on the way)\n`,
      );
      if (keepDir) writeFileSync(markFile, JSON.stringify({ n: N, storeId, key }));
      if (FILL_ONLY) {
        await index.close();
        return;
      }
    }

    // The index alone. Its read worker starts now, as a server starts it when it opens the index (create-app's
    // warmUp; the worker then preloads the largest lists' blocks between queries, LARDER_SEARCH_LEXICAL_PRELOAD_MB);
    // BENCH_SEARCH_LAZY_WORKER=1: with the first lexical query instead (the cold row then waits for its start too).
    if (process.env.BENCH_SEARCH_LAZY_WORKER !== '1') index.warmUp();
    const queries = benchQueries(c, QUERIES);
    // Other queries of the same kind (their own words; the measured queries' vectors, so the corpus's draws
    // are not disturbed): WARMUP of them before each measured pass, as a serving index has answered others
    // before (its code optimised, the common lists' blocks cached); and a cold pass on a set of their own
    // (the first queries after the index opens: lists read and code optimised on the way).
    const otherQueries = (seed: number, n: number) =>
      benchQueries(c, n, seed, (i) => queries[(seed * 31 + i) % queries.length].vector);
    const warmQueries = otherQueries(8, WARMUP);
    const coldQueries = otherQueries(9, QUERIES);
    const time = async (
      fn: (q: (typeof queries)[number]) => Promise<unknown>,
      slowest?: string,
      measured = queries,
      warmUp = warmQueries,
    ) => {
      for (const q of warmUp) await fn(q);
      const ms: number[] = [];
      const w0 = performance.now();
      for (const q of measured) {
        const s = performance.now();
        await fn(q);
        ms.push(performance.now() - s);
      }
      if (slowest) {
        const worst = ms
          .map((t, i) => [t, i] as const)
          .sort((a, b) => b[0] - a[0])
          .slice(0, 5);
        process.stdout.write(
          `slowest ${slowest} queries: ${worst.map(([t, i]) => `"${measured[i].text}" ${fmt(t)} ms`).join(', ')}\n`,
        );
      }
      return { p50: pct(ms, 50), p99: pct(ms, 99), qps: queries.length / ((performance.now() - w0) / 1000) };
    };
    const q0 = { storeIds: [storeId], topK: 10 };
    const rows: Array<[string, { p50: number; p99: number; qps: number }]> = [];
    if (!ENDPOINT_ONLY) {
      const dense = await time((q) => index.searchDense({ ...q0, vector: q.vector, model: MODEL }));
      const lexicalCold = await time(
        (q) => index.searchLexical({ ...q0, text: q.text }),
        'cold lexical',
        coldQueries,
        [],
      );
      const lexical = await time((q) => index.searchLexical({ ...q0, text: q.text }), 'lexical');
      const rm3Index = new SqliteChunkIndex(join(dir, 'data', 'chunk-index', 'chunks.sqlite'), {
        lexical: { feedback: RM3_FEEDBACK, feedbackMinWords: 0 },
      });
      await rm3Index.setup();
      const lexicalRm3 = await time((q) => rm3Index.searchLexical({ ...q0, text: q.text }), 'RM3 lexical');
      await rm3Index.close();
      // the hybrid's two halves alone (50 candidates each): lexical runs in the read worker, dense on this thread
      const lexical50 = await time((q) => index.searchLexical({ ...q0, topK: 50, text: q.text }));
      const dense50 = await time((q) => index.searchDense({ ...q0, topK: 50, vector: q.vector, model: MODEL }));
      const afterWrite = await denseAfterWrites(index, storeId, queries);
      rows.push(
        ['index: dense top-10 (IVF above 20k vectors, exact re-scoring)', dense],
        [`index: lexical top-10, cold (the first ${QUERIES} queries after the index opens, other words)`, lexicalCold],
        [`index: lexical top-10 (BM25; after ${WARMUP} other queries)`, lexical],
        ['index: lexical top-10 + RM3 feedback (forced; by default only queries of 14+ words get it)', lexicalRm3],
        ["index: lexical top-50 (the hybrid's lexical half)", lexical50],
        ["index: dense top-50 (the hybrid's dense half)", dense50],
        ['index: dense top-10, each right after a write to its store (a file of 2 chunks added)', afterWrite],
      );
    }
    const fusion = {
      method: DEFAULT_FUSION.method['use-lite'],
      lexicalWeight: DEFAULT_FUSION.lexicalWeight['use-lite'],
    };
    // as the search endpoint asks the index: the candidates' places and scores, fused, then the answer's 10 chunks read
    const hitsThenRead = async (q: (typeof queries)[number]) => {
      const [l, d] = await Promise.all([
        index.searchLexical({ ...q0, topK: 50, text: q.text }),
        index.searchDense({ ...q0, topK: 50, vector: q.vector, model: MODEL }),
      ]);
      return index.hydrate(fuse(l, d, fusion).slice(0, 10));
    };
    // every candidate's row read (text, metadata, file fields), as a reranked search or a file search reads them
    const wholeRows = async (q: (typeof queries)[number]) => {
      const [l, d] = await Promise.all([
        index.searchLexical({ ...q0, topK: 50, text: q.text }).then((h) => index.hydrate(h)),
        index.searchDense({ ...q0, topK: 50, vector: q.vector, model: MODEL }).then((h) => index.hydrate(h)),
      ]);
      return fuse(l, d, fusion).slice(0, 10);
    };
    // the two timed query by query, in turns (which goes first alternates), so that both meet the same
    // cache state: one after the other, the first would read the lists the second then finds cached
    const pair = async () => {
      for (const q of warmQueries) {
        await hitsThenRead(q);
        await wholeRows(q);
      }
      const a: number[] = [];
      const b: number[] = [];
      const sa = { t: 0 };
      const sb = { t: 0 };
      const one = async (q: (typeof queries)[number], fn: typeof wholeRows, into: number[], sum: { t: number }) => {
        const t = performance.now();
        await fn(q);
        const ms = performance.now() - t;
        into.push(ms);
        sum.t += ms;
      };
      for (const [i, q] of queries.entries()) {
        if (i % 2) {
          await one(q, wholeRows, b, sb);
          await one(q, hitsThenRead, a, sa);
        } else {
          await one(q, hitsThenRead, a, sa);
          await one(q, wholeRows, b, sb);
        }
      }
      const row = (ms: number[], sum: { t: number }) => ({
        p50: pct(ms, 50),
        p99: pct(ms, 99),
        qps: ms.length / (sum.t / 1000),
      });
      return [row(a, sa), row(b, sb)];
    };
    const [hybrid, hybridRows] = await pair();
    rows.push(
      ['index: hybrid top-10 (50 + 50 candidates fused, the 10 chunks read; timed in turns with the next row)', hybrid],
      ['index: hybrid top-10, every candidate read (50 + 50 whole rows, fused)', hybridRows],
    );
    if (!ENDPOINT_ONLY) {
      const recall = await recallAt10(
        index,
        storeId,
        written,
        queries.slice(0, 100).map((q) => q.vector),
      );
      process.stdout.write(`dense recall@10 against exact search (100 queries): ${recall.toFixed(3)}\n`);
    }
    await index.close();
    if (!ENDPOINT_ONLY) {
      // what a server start pays for the index before it listens (bench/restart.bench.ts times a whole restart)
      const r0 = performance.now();
      const reopened = new SqliteChunkIndex(join(dir, 'data', 'chunk-index', 'chunks.sqlite'));
      await reopened.setup();
      const { ms, from } = reopened.ivfLoad;
      process.stdout.write(
        `reopening the index: ${((performance.now() - r0) / 1000).toFixed(2)} s (IVF lists ${from === 'persisted' ? 'read from their persisted copy' : 'rebuilt from the vectors'} in ${(ms / 1000).toFixed(2)} s)\n\n`,
      );
      await reopened.close();
    }

    // End to end through the running server (query embedding by the synthetic endpoint included).
    child = await start();
    const e2e = await time((q) =>
      post('/v1/stores/search', { query: q.text, store_identifiers: [storeId], top_k: 10 }),
    );
    // the measured searches (not the warm-up before them)
    const measured = searches.slice(-queries.length);
    rows.push(['POST /v1/stores/search end to end (hybrid)', e2e]);
    if (!ENDPOINT_ONLY) {
      const common = c.vocab[0];
      const rare = c.vocab[19_000];
      const grepSel = await time(
        () => post('/v1/stores/grep', { pattern: `\\b${rare}\\b`, store_identifiers: [storeId], top_k: 10 }),
        undefined,
        queries,
        queries.slice(0, 1),
      );
      const grepUnsel = await time(
        () => post('/v1/stores/grep', { pattern: `${common}\\s+\\w+`, store_identifiers: [storeId], top_k: 10 }),
        undefined,
        queries,
        queries.slice(0, 1),
      );
      rows.push(
        [`POST /v1/stores/grep, selective (\\b${rare}\\b)`, grepSel],
        [`POST /v1/stores/grep, unselective (${common}\\s+\\w+)`, grepUnsel],
      );
    }
    const w = Math.max(...rows.map((r) => r[0].length));
    process.stdout.write(
      `load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(', ')}\n`,
    );
    process.stdout.write(
      `| ${'operation'.padEnd(w)} | p50 ms | p99 ms | queries/s |\n|${'-'.repeat(w + 2)}|-------:|-------:|----------:|\n`,
    );
    for (const [k, v] of rows)
      process.stdout.write(
        `| ${k.padEnd(w)} | ${fmt(v.p50).padStart(6)} | ${fmt(v.p99).padStart(6)} | ${fmt(v.qps).padStart(9)} |\n`,
      );
    const embedMedian = pct(
      measured.map((r) => r.steps.embed ?? 0),
      50,
    );
    process.stdout.write(
      `\nendpoint overhead over the index's hybrid query (the 10 chunks read) at p50 (a difference of two rows' p50s): ${fmt(e2e.p50 - hybrid.p50)} ms; less the embedding's median (${fmt(embedMedian)} ms): ${fmt(e2e.p50 - hybrid.p50 - embedMedian)} ms\n`,
    );
    const own = measured.map((r) => ownTime(r.steps, r.ms));
    const p5099 = (xs: number[]) => `p50 ${fmt(pct(xs, 50))} / p99 ${fmt(pct(xs, 99))} ms`;
    process.stdout.write(
      `the API's own time per search request, from its Server-Timing (bench/support.ts ownTime): endpoint − index − embedding (time at the client − embed − dense − lexical_wait) ${p5099(own.map((o) => o.endpoint))}; ` +
        `the same in the server (total − embed − dense − lexical_wait) ${p5099(own.map((o) => o.server))}; on the critical path (total − embed_wait − dense − lexical_wait) ${p5099(own.map((o) => o.critical))}\n`,
    );
    const serverTimings = measured.map((r) => r.steps);
    const keys = [...new Set(serverTimings.flatMap((t) => Object.keys(t)))];
    process.stdout.write(
      `server-side steps of the search requests (median ms): ${keys
        .map(
          (k) =>
            `${k} ${fmt(
              pct(
                serverTimings.map((t) => t[k] ?? 0),
                50,
              ),
            )}`,
        )
        .join(', ')}\n`,
    );
  } finally {
    if (child.exitCode === null) {
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await stop(child);
      clearTimeout(kill);
    }
    agent.destroy();
    embeddings.close();
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
  }
}

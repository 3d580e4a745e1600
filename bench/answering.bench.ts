import { spawn, ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { Agent } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  startChatCompletionsDouble,
  ChatCompletionRequestBody,
  ChatReply,
  ChatCompletionsDouble,
} from '@larder/ai/testing/chat-completions-double';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { words } from '@larder/chunk-index/analysis/analyzer';
import { contentTerms, sentences } from '@larder/search/answering/text';
import { apiCall, freePort, waitForServer } from './support';

/**
 * Question answering and agentic search on the embedded default (bundled USE-lite model), over the
 * CISI collection uploaded through the HTTP API, one small text file per document:
 *
 * 1. Latency of plain search, extractive QA and agentic search (default config and `max_rounds: 2`)
 *    without a model, then of QA and agentic search with a model: a Larder whose LARDER_LLM_URL points
 *    at the chat-completions double, which generates at a fixed per-token delay. Sequential requests,
 *    CISI's queries as the questions; every row gets a freshly started server (cold query-embedding
 *    cache) and a warm-up on questions outside the measured set. For the model rows, the time spent
 *    inside the double is measured there, so Larder's own overhead is visible.
 * 2. Extractive answer quality on CISI's judged queries (the tuning collection): whether the answer's
 *    first cited source, or any cited source, is a relevant document; how often no answer is found;
 *    and search precision@1 for comparison. Cranfield (held out) only with BENCH_ANSWERING_CRANFIELD=1.
 *
 * Environment: BENCH_ANSWERING_N (requests per latency row, 30), BENCH_ANSWERING_WARMUP (3),
 * BENCH_ANSWERING_QUERIES (judged queries scored for quality, all), BENCH_ANSWERING_TOKEN_MS (the
 * double's delay per generated token, 5), BENCH_ANSWERING_ANSWER_TOKENS (tokens of a model answer, 40),
 * BENCH_ANSWERING_UPLOADS (concurrent uploads, 4), BENCH_DATA_DIR (the collections, ../shared/data),
 * BENCH_ANSWERING_DATA_DIR (keep the server's data directory there and reuse an ingested store on the
 * next run instead of ingesting again; default: a temporary directory, removed at the end).
 */
const N = Number(process.env.BENCH_ANSWERING_N ?? 30);
const WARMUP = Number(process.env.BENCH_ANSWERING_WARMUP ?? 3);
const QUALITY_QUERIES = Number(process.env.BENCH_ANSWERING_QUERIES ?? Infinity);
const TOKEN_MS = Number(process.env.BENCH_ANSWERING_TOKEN_MS ?? 5);
const ANSWER_TOKENS = Number(process.env.BENCH_ANSWERING_ANSWER_TOKENS ?? 40);
const UPLOADS = Number(process.env.BENCH_ANSWERING_UPLOADS ?? 4);
const CRANFIELD = process.env.BENCH_ANSWERING_CRANFIELD === '1';
const KEEP_DIR = process.env.BENCH_ANSWERING_DATA_DIR || null;
/** As in libs/search/src/answering/extractive-answer.ts: at most this many candidate sentences are embedded per question. */
const SENTENCES_EMBEDDED = 8;
const ROOT = join(__dirname, '..', '..');
const DATA = process.env.BENCH_DATA_DIR ?? join(ROOT, '..', 'shared', 'data');
const TOP_K = 10;
const NO_ANSWER_PREFIX = 'None of the retrieved passages';

interface Collection {
  name: string;
  docs: Array<{ id: string; title: string; text: string }>;
  queries: Array<{ id: string; text: string }>;
  /** query id → relevant document ids */
  qrels: Map<string, Set<string>>;
}

function readCollection(name: string): Collection {
  const dir = join(DATA, name);
  const jsonl = <T>(file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as T);
  const docs = jsonl<{ _id: string; title: string; text: string }>('corpus.jsonl').map((d) => ({
    id: d._id,
    title: d.title ?? '',
    text: d.text ?? '',
  }));
  const queries = jsonl<{ _id: string; text: string }>('queries.jsonl').map((q) => ({ id: q._id, text: q.text }));
  const qrels = new Map<string, Set<string>>();
  for (const line of readFileSync(join(dir, 'qrels', 'test.tsv'), 'utf8')
    .split('\n')
    .slice(1)) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d || !(Number(s) > 0)) continue;
    qrels.set(q, (qrels.get(q) ?? new Set()).add(d));
  }
  return { name, docs, queries, qrels };
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const share = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : 'n/a');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const out = (s = '') => process.stdout.write(`${s}\n`);

function table(head: string[], rows: string[][], right: boolean[]): void {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (right[i] ? c.padStart(w[i]) : c.padEnd(w[i]))).join(' | ')} |`;
  out(line(head));
  out(`|${w.map((n, i) => (right[i] ? `${'-'.repeat(n + 1)}:` : '-'.repeat(n + 2))).join('|')}|`);
  for (const r of rows) out(line(r));
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** A kept-alive node:http call to the server on `port` (the numbers are the server's, not a client library's). */
const call = (port: number, key: string, method: string, path: string, body?: Buffer, type = 'application/json') =>
  apiCall(agent, `http://127.0.0.1:${port}`, key, method, path, body, type, 120_000);

interface Source {
  filename: string;
  score: number;
}
interface QaAnswer {
  answer: string;
  sources: Source[];
  model: string;
}
interface SearchAnswer {
  data: Source[];
}

/** A Larder process on one data directory; started again for every latency row (cold caches). */
class Larder {
  private child: ChildProcess | null = null;
  port = 0;

  constructor(
    private readonly dataDir: string,
    readonly key: string,
  ) {}

  async start(extraEnv: Record<string, string> = {}): Promise<number> {
    const t0 = performance.now();
    this.port = await freePort();
    this.child = spawn(
      process.execPath,
      ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/api/src/main.js')],
      {
        env: {
          ...process.env,
          PORT: String(this.port),
          LARDER_DATA_DIR: this.dataDir,
          LARDER_ROOT_KEY: this.key,
          LARDER_LOG_LEVEL: 'warn',
          ...extraEnv,
        },
        stdio: 'inherit',
      },
    );
    await waitForServer(`http://127.0.0.1:${this.port}`, 120);
    return performance.now() - t0;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
    clearTimeout(kill);
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await call(
      this.port,
      this.key,
      method,
      path,
      body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    );
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 500)}`);
    return JSON.parse(r.text) as T;
  }

  /** Until every projection and reactor is current (the activity events of the last requests included). */
  async settled(): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const r = await call(this.port, this.key, 'GET', '/health/ready').catch(() => null);
      const items = r
        ? ((JSON.parse(r.text) as { checks?: { projections?: { items?: Array<{ lag: number }> } } }).checks?.projections
            ?.items ?? [])
        : [];
      if (items.length && items.every((p) => p.lag === 0)) return;
      await sleep(100);
    }
  }
}

/** Uploads one text file per document (`<id>.txt`: title, blank line, text) and waits until all settled. */
async function ingest(larder: Larder, c: Collection): Promise<{ storeId: string; rows: string[][] }> {
  const existing = await call(larder.port, larder.key, 'GET', `/v1/stores/bench-${c.name}`);
  if (existing.status === 200) {
    const s = JSON.parse(existing.text) as { id: string; file_counts: Record<string, number> };
    if (s.file_counts.completed === c.docs.length)
      return {
        storeId: s.id,
        rows: [
          [
            `${c.name}: reused the store ingested by an earlier run (BENCH_ANSWERING_DATA_DIR)`,
            `${s.file_counts.completed} files`,
          ],
        ],
      };
    await larder.json('DELETE', `/v1/stores/${s.id}`);
  }
  const store = await larder.json<{ id: string }>('POST', '/v1/stores', { name: `bench-${c.name}` });
  const t0 = performance.now();
  let next = 0;
  let failed = 0;
  const uploader = async () => {
    while (next < c.docs.length) {
      const d = c.docs[next++];
      const boundary = `----larderbench${randomBytes(6).toString('hex')}`;
      const body = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${d.id}.txt"\r\nContent-Type: text/plain\r\n\r\n${d.title}\n\n${d.text}\r\n--${boundary}--\r\n`,
      );
      const r = await call(
        larder.port,
        larder.key,
        'POST',
        `/v1/stores/${store.id}/files/upload`,
        body,
        `multipart/form-data; boundary=${boundary}`,
      );
      if (r.status !== 201) {
        failed++;
        process.stderr.write(`upload ${d.id}.txt: ${r.status} ${r.text.slice(0, 200)}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: UPLOADS }, uploader));
  const uploaded = performance.now();
  let counts: Record<string, number>;
  for (;;) {
    counts = (await larder.json<{ file_counts: Record<string, number> }>('GET', `/v1/stores/${store.id}`)).file_counts;
    if (!counts.pending && !counts.in_progress) break;
    await sleep(500);
  }
  await larder.settled();
  const done = performance.now();
  return {
    storeId: store.id,
    rows: [
      [`${c.name}: documents uploaded (failed uploads)`, `${c.docs.length} (${failed})`],
      [`${c.name}: files completed / failed`, `${counts.completed} / ${counts.failed}`],
      [`${c.name}: upload, ${UPLOADS} at a time (s)`, ((uploaded - t0) / 1000).toFixed(1)],
      [`${c.name}: upload → every file ingested and indexed (s)`, ((done - t0) / 1000).toFixed(1)],
    ],
  };
}

/** What the double did for the requests of one row. */
interface DoubleMeter {
  calls: number;
  /** Time between a request's arrival at the double and the end of its answer. */
  ms: number;
  /** Tokens generated (answers and tool-call arguments). */
  tokens: number;
  pending: Array<Promise<unknown>>;
}

const freshMeter = (): DoubleMeter => ({ calls: 0, ms: 0, tokens: 0, pending: [] });

/**
 * The model the model rows talk to: the chat-completions double, generating at TOKEN_MS per token.
 * QA answers (streamed) are ANSWER_TOKENS words of the first source, cited; the agentic planner's
 * first call gets `search` with two queries (the question's key words, the top result's opening
 * words), later calls `finish` with the first five result ids it was shown.
 */
function scriptModel(llm: ChatCompletionsDouble, meter: () => DoubleMeter): void {
  llm.handle(async (body: ChatCompletionRequestBody, recorded) => {
    const m = meter();
    const t0 = performance.now();
    m.calls++;
    m.pending.push(recorded.closed.then(() => (m.ms += performance.now() - t0)));
    const text = (x: unknown) => (typeof x === 'string' ? x : '');
    const users = body.messages.filter((x) => x.role === 'user').map((x) => text(x.content));
    const last = users[users.length - 1] ?? '';
    if (body.tools?.some((t) => t.function.name === 'store_search')) {
      // a chat completion with the hosted store_search tool: search once with the question, then answer citing the first passage
      const searched = body.messages.some((x) => x.role === 'tool');
      const question = users[0] ?? '';
      const reply: ChatReply = searched
        ? {
            content: `${question
              .split(/\s+/)
              .slice(0, ANSWER_TOKENS - 1)
              .join(' ')} <cite i="0"/>`,
          }
        : { toolCalls: [{ name: 'store_search', arguments: { query: question.slice(0, 500) } }] };
      const tokens = searched ? ANSWER_TOKENS : Math.ceil(Math.min(question.length, 500) / 4) + 4;
      m.tokens += tokens;
      await sleep(tokens * TOKEN_MS);
      return reply;
    }
    if (!body.tools) {
      // an answer from numbered sources: "[0] <filename>\n<text>"
      const first = /\[0\][^\n]*\n([^]*?)(?:\n\n\[1\]|\n\nQuestion:)/.exec(last)?.[1] ?? last;
      const words = first.split(/\s+/).filter(Boolean);
      while (words.length && words.length < ANSWER_TOKENS - 1)
        words.push(...words.slice(0, ANSWER_TOKENS - 1 - words.length));
      const content = `${words.slice(0, ANSWER_TOKENS - 1).join(' ')} <cite i="0"/>`;
      m.tokens += ANSWER_TOKENS;
      return { content, tokenDelayMs: TOKEN_MS } satisfies ChatReply;
    }
    const searched = body.messages.some((x) => x.role === 'assistant');
    const canSearch = body.tools.some((t) => t.function.name === 'search');
    const ids = [...last.matchAll(/^\[(r\d+)\]/gm)].map((x) => x[1]);
    let reply: { name: string; arguments: Record<string, unknown> };
    if (canSearch && !searched) {
      const question = (users[0] ?? '').replace(/^Question:\s*/, '');
      const keyWords = question.split(/\W+/).filter((w) => w.length > 3);
      const topSnippet = /^\[r1\][^:]*:\s*(.*)$/m.exec(last)?.[1] ?? question;
      reply = {
        name: 'search',
        arguments: {
          queries: [keyWords.slice(0, 8).join(' '), topSnippet.split(/\s+/).slice(0, 10).join(' ')].filter(Boolean),
        },
      };
    } else {
      reply = {
        name: 'finish',
        arguments: {
          relevant: ids.slice(0, 5),
          rationale: 'Ordered by how directly each passage addresses the question.',
        },
      };
    }
    // tool calls are answered whole: the generation time (about 4 characters per token) is spent before answering
    const tokens = Math.ceil(JSON.stringify(reply.arguments).length / 4);
    m.tokens += tokens;
    await sleep(tokens * TOKEN_MS);
    return { toolCalls: [reply] } satisfies ChatReply;
  });
}

interface Row {
  label: string;
  path: string;
  body: (q: string) => Record<string, unknown>;
}

interface Timed {
  label: string;
  ms: number[];
  /** The answers' bodies, in order. */
  bodies: string[];
  startMs: number;
  double?: { calls: number; ms: number; tokens: number };
  agentic?: { rounds: number; searches: number; generations: number; results: number };
}

/** One latency row: a fresh server, WARMUP requests, then N timed ones, sequentially. */
async function timeRow(
  larder: Larder,
  env: Record<string, string>,
  row: Row,
  questions: string[],
  warmup: string[],
  meter?: { reset: () => void; get: () => DoubleMeter },
): Promise<Timed> {
  const startMs = await larder.start(env);
  try {
    for (const q of warmup) await larder.json('POST', row.path, row.body(q));
    await larder.settled();
    const since = new Date().toISOString();
    meter?.reset();
    const ms: number[] = [];
    const bodies: string[] = [];
    for (const q of questions) {
      const t = performance.now();
      const r = await call(larder.port, larder.key, 'POST', row.path, Buffer.from(JSON.stringify(row.body(q))));
      const elapsed = performance.now() - t;
      if (r.status !== 200) throw new Error(`${row.label}: ${r.status} ${r.text.slice(0, 300)}`);
      ms.push(elapsed);
      bodies.push(r.text);
    }
    const timed: Timed = { label: row.label, ms, bodies, startMs };
    if (meter) {
      const m = meter.get();
      await Promise.all(m.pending);
      timed.double = { calls: m.calls, ms: m.ms, tokens: m.tokens };
    }
    if (row.body('').search_options)
      timed.agentic = await agenticEvents(larder, (row.body('').store_identifiers as string[])[0], since);
    return timed;
  } finally {
    await larder.stop();
  }
}

/** Means per request of the row's agentic_search activity events (rounds, store searches, model calls). */
async function agenticEvents(larder: Larder, storeId: string, since: string): Promise<Timed['agentic']> {
  await larder.settled();
  const events: Array<{ rounds_executed?: number; tool_calls?: Array<{ tool_name: string }>; results?: unknown[] }> =
    [];
  let after: string | null = null;
  for (;;) {
    const qs: string = `event_type=agentic_search&limit=100&filter_after=${encodeURIComponent(since)}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page: { data: typeof events; pagination: { has_more: boolean; last_cursor: string | null } } =
      await larder.json<{
        data: typeof events;
        pagination: { has_more: boolean; last_cursor: string | null };
      }>('GET', `/v1/stores/${storeId}/events?${qs}`);
    events.push(...page.data);
    if (!page.pagination.has_more || !page.pagination.last_cursor) break;
    after = page.pagination.last_cursor;
  }
  if (!events.length) return undefined;
  const per = (fn: (e: (typeof events)[number]) => number) => mean(events.map(fn));
  return {
    rounds: per((e) => e.rounds_executed ?? 0),
    searches: per((e) => (e.tool_calls ?? []).filter((t) => t.tool_name === 'store_search').length),
    generations: per((e) => (e.tool_calls ?? []).filter((t) => t.tool_name === 'generation').length),
    results: per((e) => e.results?.length ?? 0),
  };
}

/** The bodies a latency row received, by question (its requests are the quality phase's: same store, top_k, no options). */
function answersOf(results: Timed[], label: string, questions: string[]): Map<string, string> {
  const r = results.find((x) => x.label === label);
  return new Map(r ? r.bodies.map((b, i) => [questions[i], b]) : []);
}

/** Embeds as many sentences as extractive QA embeds for each answer (8 of its sources' sentences), timed per answer. */
async function sentenceEmbedding(
  bodies: string[],
): Promise<{ model: string; questions: number; sentences: number; ms: number }> {
  const embedder = new UseLiteEmbedder();
  try {
    await embedder.embed(['warm up'], 'document');
    const counts: number[] = [];
    const ms: number[] = [];
    for (const body of bodies) {
      const qa = JSON.parse(body) as { sources: Array<{ text?: string }> };
      const pool: string[] = [];
      for (const s of qa.sources)
        for (const sentence of sentences(s.text ?? ''))
          if (contentTerms(sentence.text).length >= 2 || words(sentence.text).length >= 4) pool.push(sentence.text);
      const head = pool.slice(0, SENTENCES_EMBEDDED);
      const t = performance.now();
      await embedder.embed(head, 'document');
      ms.push(performance.now() - t);
      counts.push(head.length);
    }
    return { model: embedder.model, questions: bodies.length, sentences: mean(counts), ms: mean(ms) };
  } finally {
    await embedder.close();
  }
}

/** Extractive answer quality over the judged queries of a collection (no model). */
async function quality(
  larder: Larder,
  storeId: string,
  c: Collection,
  known: { qa: Map<string, string>; search: Map<string, string> } = { qa: new Map(), search: new Map() },
): Promise<string[][]> {
  const judged = c.queries.filter((q) => c.qrels.has(q.id)).slice(0, QUALITY_QUERIES);
  const docOf = (s: Source | undefined) => s?.filename.replace(/\.txt$/, '');
  let firstCited = 0;
  let anyCited = 0;
  let noAnswer = 0;
  let citedTotal = 0;
  let citedRelevant = 0;
  let searchP1 = 0;
  let sourcesHit = 0;
  let qaFirstSource = 0;
  const t0 = performance.now();
  const reused = { qa: 0, search: 0 };
  const ask = async <T>(path: string, q: string, answers: Map<string, string>): Promise<T> => {
    const body = answers.get(q);
    if (body !== undefined) return (answers === known.qa ? reused.qa++ : reused.search++, JSON.parse(body) as T);
    return larder.json<T>('POST', path, { query: q, store_identifiers: [storeId], top_k: TOP_K });
  };
  for (const q of judged) {
    const relevant = c.qrels.get(q.id)!;
    const qa = await ask<QaAnswer>('/v1/stores/question-answering', q.text, known.qa);
    const search = await ask<SearchAnswer>('/v1/stores/search', q.text, known.search);
    const cited: number[] = [];
    for (const m of qa.answer.matchAll(/<cite i="(\d+)"\/>/g))
      if (!cited.includes(Number(m[1]))) cited.push(Number(m[1]));
    const citedDocs = cited.map((i) => docOf(qa.sources[i]));
    if (qa.answer.startsWith(NO_ANSWER_PREFIX)) noAnswer++;
    if (citedDocs.length && relevant.has(citedDocs[0] ?? '')) firstCited++;
    if (citedDocs.some((d) => relevant.has(d ?? ''))) anyCited++;
    const distinct = [...new Set(citedDocs)];
    citedTotal += distinct.length;
    citedRelevant += distinct.filter((d) => relevant.has(d ?? '')).length;
    if (relevant.has(docOf(search.data[0]) ?? '')) searchP1++;
    if (relevant.has(docOf(qa.sources[0]) ?? '')) qaFirstSource++;
    if (qa.sources.some((s) => relevant.has(docOf(s) ?? ''))) sourcesHit++;
  }
  const n = judged.length;
  const secs = (performance.now() - t0) / 1000;
  return [
    ['judged queries asked (QA without a model, top_k 10; and a plain search)', String(n)],
    ['first cited source is relevant', share(firstCited, n)],
    ['some cited source is relevant', share(anyCited, n)],
    [`no answer found ("${NO_ANSWER_PREFIX}…")`, share(noAnswer, n)],
    [
      'cited documents that are relevant (all citations pooled)',
      `${share(citedRelevant, citedTotal)} of ${citedTotal}`,
    ],
    ['search precision@1 (top plain-search result relevant)', share(searchP1, n)],
    ["QA's first source (rank 1 of its retrieval) relevant", share(qaFirstSource, n)],
    ['some of the 10 sources relevant (ceiling for any cited)', share(sourcesHit, n)],
    [
      'time for the queries (s; answers of the latency rows to the same requests reused)',
      `${secs.toFixed(1)} (${reused.qa} QA answers, ${reused.search} searches reused)`,
    ],
  ];
}

export async function answeringBench(): Promise<void> {
  const cisi = readCollection('cisi');
  const cranfield = CRANFIELD ? readCollection('cranfield') : null;
  out(
    `\n## Answering: question answering and agentic search over CISI (${cisi.docs.length} documents, ${cisi.queries.length} queries), embedded default`,
  );
  const dir = KEEP_DIR ?? mkdtempSync(join(tmpdir(), 'larder-bench-answering-'));
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'bench-root-key');
  const key = existsSync(keyFile)
    ? readFileSync(keyFile, 'utf8').trim()
    : `lrd_bench_${randomBytes(24).toString('base64url')}`;
  writeFileSync(keyFile, key, { mode: 0o600 });
  const larder = new Larder(join(dir, 'data'), key);
  const llm = await startChatCompletionsDouble();
  let meter = freshMeter();
  scriptModel(llm, () => meter);
  const t0 = performance.now();
  try {
    const firstStart = await larder.start();
    const ingestion = await ingest(larder, cisi);
    const cran = cranfield ? await ingest(larder, cranfield) : null;
    await larder.stop();
    out();
    table(
      ['ingestion through the API', 'value'],
      [['first server start (s)', (firstStart / 1000).toFixed(1)], ...ingestion.rows, ...(cran?.rows ?? [])],
      [false, true],
    );

    // Latency: the same N questions for every row, warm-up questions outside them (as far as the collection allows).
    const all = cisi.queries.map((q) => q.text);
    const warmup = all.slice(Math.max(0, all.length - WARMUP));
    const pool = all.length - warmup.length >= 1 ? all.slice(0, all.length - warmup.length) : all;
    const questions = Array.from({ length: N }, (_, i) => pool[i % pool.length]);
    const store = [ingestion.storeId];
    const searchRow = (label: string, options?: Record<string, unknown>): Row => ({
      label,
      path: '/v1/stores/search',
      body: (q) => ({
        query: q,
        store_identifiers: store,
        top_k: TOP_K,
        ...(options ? { search_options: options } : {}),
      }),
    });
    const qaRow = (label: string): Row => ({
      label,
      path: '/v1/stores/question-answering',
      body: (q) => ({ query: q, store_identifiers: store, top_k: TOP_K }),
    });
    const plain: Row[] = [
      searchRow('search (hybrid), no model'),
      qaRow('question answering, extractive (no model)'),
      searchRow('agentic search, no model (default: max_rounds 3)', { agentic: true }),
      searchRow('agentic search, no model, max_rounds 2', { agentic: { max_rounds: 2 } }),
    ];
    const chatRow = (label: string): Row => ({
      label,
      path: '/v1/chat/completions',
      body: (q) => ({
        model: 'bench-double',
        messages: [{ role: 'user', content: q }],
        tools: [{ type: 'store_search', store_identifiers: store }],
      }),
    });
    const withModel: Row[] = [
      chatRow('chat completion, one hosted store_search turn (2 model calls)'),
      qaRow('question answering, model answer (streamed from the double)'),
      searchRow('agentic search, model planner (default: max_rounds 3)', { agentic: true }),
      searchRow('agentic search, model planner, max_rounds 2', { agentic: { max_rounds: 2 } }),
    ];
    const llmEnv = { LARDER_LLM_URL: llm.url, LARDER_LLM_MODEL: 'bench-double' };
    const results: Timed[] = [];
    for (const row of plain) results.push(await timeRow(larder, {}, row, questions, warmup));
    for (const row of withModel)
      results.push(
        await timeRow(larder, llmEnv, row, questions, warmup, {
          reset: () => (meter = freshMeter()),
          get: () => meter,
        }),
      );

    const repeats = N > pool.length ? `, so questions repeat (the query-embedding cache answers repeats)` : '';
    out();
    out(
      `Latency: ${N} sequential requests per row (CISI queries${repeats}), top_k ${TOP_K}, after ${warmup.length} warm-up requests on other questions; every row on a freshly started server (cold caches). Model rows: the double generates at ${TOKEN_MS} ms per token (answers ${ANSWER_TOKENS} tokens, streamed; tool calls answered whole after their tokens' time).`,
    );
    out();
    table(
      ['operation', 'p50 ms', 'p99 ms', 'mean ms'],
      results.map((r) => [r.label, f1(pct(r.ms, 50)), f1(pct(r.ms, 99)), f1(mean(r.ms))]),
      [false, true, true, true],
    );
    const ag = results.filter((r) => r.agentic);
    if (ag.length) {
      out();
      out('Agentic runs (means per request, from the agentic_search activity events):');
      out();
      table(
        ['operation', 'rounds', 'store searches', 'model calls', 'results'],
        ag.map((r) => [
          r.label,
          r.agentic!.rounds.toFixed(2),
          r.agentic!.searches.toFixed(2),
          r.agentic!.generations.toFixed(2),
          r.agentic!.results.toFixed(1),
        ]),
        [false, true, true, true, true],
      );
    }
    const md = results.filter((r) => r.double);
    if (md.length) {
      out();
      out(
        `Time with the model (means per request; "in the double" = from a request's arrival at the double to the end of its answer, measured there):`,
      );
      out();
      table(
        [
          'operation',
          'model calls',
          'tokens generated',
          'tokens × delay ms',
          'in the double ms',
          'request ms',
          'share in the double',
          'Larder (rest) ms',
        ],
        md.map((r) => {
          const n = r.ms.length;
          const d = r.double!;
          const req = mean(r.ms);
          return [
            r.label,
            (d.calls / n).toFixed(2),
            (d.tokens / n).toFixed(1),
            f1((d.tokens / n) * TOKEN_MS),
            f1(d.ms / n),
            f1(req),
            share(d.ms / n, req),
            f1(req - d.ms / n),
          ];
        }),
        [false, true, true, true, true, true, true, true],
      );
      const base = (label: string) => results.find((r) => r.label === label);
      const pairs: Array<[string, string]> = [
        ['question answering, model answer (streamed from the double)', 'question answering, extractive (no model)'],
        ['agentic search, model planner (default: max_rounds 3)', 'agentic search, no model (default: max_rounds 3)'],
        ['agentic search, model planner, max_rounds 2', 'agentic search, no model, max_rounds 2'],
      ];
      out();
      for (const [withM, without] of pairs) {
        const a = base(withM);
        const b = base(without);
        if (a?.double && b)
          out(
            `- ${withM}: ${f1(mean(a.ms) - a.double.ms / a.ms.length)} ms outside the double vs ${f1(mean(b.ms))} ms for the same operation without a model`,
          );
      }
    }
    out(`\nserver starts for the rows (s): ${results.map((r) => (r.startMs / 1000).toFixed(1)).join(', ')}`);

    // Where extractive QA's time goes: the sources' sentences embedded with the bundled model, alone.
    const extractive = results.find((r) => r.label === 'question answering, extractive (no model)');
    if (extractive) {
      const e = await sentenceEmbedding(extractive.bodies.slice(0, 5));
      const qaMean = mean(extractive.ms.slice(0, e.questions));
      out(
        `extractive QA: embedding ${SENTENCES_EMBEDDED} of the sources' sentences (as many as it compares by meaning) with ${e.model} alone (in this process, server stopped, same inputs, first ${e.questions} questions): ${e.sentences.toFixed(0)} sentences and ${f1(e.ms)} ms per question on average, ${share(e.ms, qaMean)} of those requests' mean latency (${f1(qaMean)} ms)`,
      );
    }

    // Quality: extractive answers on the tuning collection (and, on request, the held-out one).
    await larder.start();
    try {
      out();
      out(
        `Extractive answer quality on CISI (the tuning collection; relevance per qrels/test.tsv, sources mapped to documents by filename):`,
      );
      out();
      table(
        ['measure (CISI, tuning)', 'value'],
        await quality(larder, ingestion.storeId, cisi, {
          qa: answersOf(results, 'question answering, extractive (no model)', questions),
          search: answersOf(results, 'search (hybrid), no model', questions),
        }),
        [false, true],
      );
      if (cranfield && cran) {
        out();
        out('HELD OUT — Cranfield (never tuned on; reported for the record only; relevance = any judged grade 1–4):');
        out();
        table(['measure (Cranfield, held out)', 'value'], await quality(larder, cran.storeId, cranfield), [
          false,
          true,
        ]);
      }
    } finally {
      await larder.stop();
    }
    out(`\ntotal bench time: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await larder.stop();
    await llm.close();
    agent.destroy();
    if (!KEEP_DIR) rmSync(dir, { recursive: true, force: true });
  }
}

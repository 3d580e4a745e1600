/* eslint-disable @typescript-eslint/no-explicit-any */
import { randomBytes } from 'crypto';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { AddressInfo } from 'net';
import { Client } from 'pg';
import { trace } from '@opentelemetry/api';
import { CommandBus } from '@nestjs/cqrs';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { CreateOrganizationCommand } from '@larder/organizations';
import { CreateApiKeyCommand } from '@larder/api-keys';
import { rotateMasterKey } from '@larder/secrets';
import {
  ChatCompletionRequestBody,
  ChatCompletionsDouble,
  startChatCompletionsDouble,
} from '@larder/ai/testing/chat-completions-double';
import {
  LangfuseDouble,
  ReceivedSpan,
  startLangfuseDouble,
  startOtlpReceiver,
  TraceBackendDouble,
} from '@larder/trace-destinations/testing/otlp-doubles';
import { loadConfig } from '../apps/api/src/config';
import { createLarderApp, LarderApp } from '../apps/api/src/create-app';
import { createServerTestDatabase, TestDatabase } from '../libs/database/src/testing/test-databases';

jest.setTimeout(300_000);

const DOCS = [
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage and mix it with two percent salt. Lactic fermentation in a crock turns the cabbage sour in about three weeks.\n',
  },
  {
    name: 'jam.md',
    text: '# Strawberry jam\n\nBoil strawberries with sugar and lemon juice until the jam sets on a cold plate.\n',
  },
  { name: 'bread.md', text: '# Sourdough\n\nFeed the starter the evening before and let the dough rise overnight.\n' },
];

/** Every credential this test hands to Larder: none may ever come back (responses), be stored in clear (any table) or be logged. */
const SECRETS = {
  otlpToken: `otlp-token-${randomBytes(12).toString('hex')}`,
  otlpTenant: `tenant-secret-${randomBytes(12).toString('hex')}`,
  otlpToken2: `otlp-token-rotated-${randomBytes(12).toString('hex')}`,
  failingKey: `json-key-${randomBytes(12).toString('hex')}`,
  lfPublic: `pk-lf-${randomBytes(12).toString('hex')}`,
  lfSecret: `sk-lf-${randomBytes(12).toString('hex')}`,
  lfPublic2: `pk-lf-rotated-${randomBytes(12).toString('hex')}`,
  lfSecret2: `sk-lf-rotated-${randomBytes(12).toString('hex')}`,
  wrong: `sk-lf-wrong-${randomBytes(12).toString('hex')}`,
};

const lastUser = (b: ChatCompletionRequestBody) => {
  const content = [...b.messages].reverse().find((m) => m.role === 'user')?.content;
  return typeof content === 'string' ? content : '';
};

/** The model: answers questions, plans agentic searches (search, then finish), and runs a hosted store_search loop in chat. */
function model(body: ChatCompletionRequestBody) {
  const names = (body.tools ?? []).map((t) => t.function.name);
  if (names.includes('finish')) {
    const shown = lastUser(body);
    if (names.includes('search') && !shown.includes('"salt brine fermentation"'))
      return {
        toolCalls: [{ name: 'search', arguments: { queries: ['salt brine fermentation'] } }],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      };
    const id = /\[(r\d+)\] sauerkraut\.md/.exec(shown)?.[1];
    return {
      toolCalls: [{ name: 'finish', arguments: { relevant: [id], rationale: 'the sauerkraut note answers' } }],
      usage: { prompt_tokens: 60, completion_tokens: 6 },
    };
  }
  if (names.includes('store_search')) {
    if (!body.messages.some((m) => m.role === 'tool'))
      return {
        toolCalls: [
          { id: 'call_search_1', name: 'store_search', arguments: { query: 'sauerkraut fermentation', top_k: 2 } },
        ],
        usage: { prompt_tokens: 40, completion_tokens: 8 },
      };
    return { content: 'About three weeks.', usage: { prompt_tokens: 90, completion_tokens: 12 } };
  }
  return {
    content: 'It ferments for about three weeks <cite i="0"/>.',
    usage: { prompt_tokens: 321, completion_tokens: 12 },
  };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The spans of the trace whose root answers `query` (by `gen_ai.retrieval.query.text`) or is of `rootName`, once it arrived. */
function traceOf(d: TraceBackendDouble, rootName: string, query?: string): ReceivedSpan[] | null {
  const root = d
    .spans()
    .find((s) => s.name === rootName && (query === undefined || s.attributes['gen_ai.retrieval.query.text'] === query));
  if (!root) return null;
  // a run may arrive more than once (at least once): one copy of each span
  const seen = new Set<string>();
  return d.spans().filter((s) => s.traceId === root.traceId && !seen.has(s.spanId) && seen.add(s.spanId));
}

describe('Trace destinations (Larder’s own API): finished runs exported as OpenTelemetry spans to OTLP and Langfuse (local doubles of their wire protocols)', () => {
  let db: TestDatabase;
  let dataDir: string;
  let llm: ChatCompletionsDouble;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>; // A: OTLP/protobuf with two secret headers
  let failing: Awaited<ReturnType<typeof startOtlpReceiver>>; // F: OTLP/JSON, made to fail, hang and redirect
  let redirector: Awaited<ReturnType<typeof startOtlpReceiver>>; // C: redirects to an internal address
  let langfuse: LangfuseDouble; // L
  let larder: LarderApp;
  let baseURL: string;
  let key: string;
  let organizationId: string;
  let c: Mixedbread;
  let store: string;
  const ids: { otlp?: string; failing?: string; langfuse?: string } = {};
  const responses: string[] = [];
  const logs: string[] = [];
  const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

  async function start(): Promise<void> {
    const config = loadConfig({
      PORT: '0',
      LARDER_DATA_DIR: dataDir,
      LARDER_ROOT_KEY: 'lrd_test_trace_destinations_root_key_0123456789',
      LARDER_LOG_LEVEL: 'debug',
      DATABASE_URL: db.url,
      LARDER_LLM_URL: llm.url,
      LARDER_LLM_MODEL: 'double-model',
      LARDER_LLM_API_KEY: 'sk-llm-e2e',
      // exactly the doubles' addresses: everything else special-purpose stays refused
      LARDER_OUTBOUND_ALLOW: [otlp, failing, redirector, langfuse].map((d) => `127.0.0.1:${d.port}`).join(','),
      LARDER_TRACE_EXPORT_TIMEOUT_MS: '1500',
      LARDER_TRACE_EXPORT_POLL_MS: '100',
      LARDER_TRACE_EXPORT_RETRY_BASE_MS: '200',
      LARDER_TRACE_EXPORT_RETRY_MAX_MS: '800',
      LARDER_TRACE_EXPORT_MAX_ATTEMPTS: '1000',
    });
    larder = await createLarderApp(config);
    await larder.app.listen(0, '127.0.0.1');
    baseURL = `http://127.0.0.1:${(larder.app.getHttpServer().address() as AddressInfo).port}`;
    c = new Mixedbread({ apiKey: key ?? 'none', baseURL, maxRetries: 0, timeout: 30_000 });
  }

  /** The trace destinations API through plain HTTP (the official client has no such resource); every answer is kept for the secrets check. */
  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${baseURL}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    responses.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  const get = (id: string) => api('GET', `/v1/trace-destinations/${id}`);
  const qa = (query: string) => c.stores.questionAnswering({ query, store_identifiers: [store], top_k: 3 });

  async function vaultRows(): Promise<Array<{ ref: string; key_id: string }>> {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      return (
        await pg.query<{ ref: string; key_id: string }>(
          `SELECT ref, key_id FROM secret_vault_v1 WHERE organization_id = $1 AND purpose = 'trace_destination' ORDER BY ref`,
          [organizationId],
        )
      ).rows;
    } finally {
      await pg.end();
    }
  }

  beforeAll(async () => {
    const capture =
      (into: 'out' | 'err') =>
      (chunk: unknown, ...rest: unknown[]) => {
        logs.push(String(chunk));
        return into === 'err' ? writes.err(chunk as string, ...(rest as [])) : true;
      };
    process.stdout.write = capture('out');
    process.stderr.write = capture('err');
    llm = await startChatCompletionsDouble({ apiKey: 'sk-llm-e2e' });
    llm.handle(model);
    otlp = await startOtlpReceiver({
      requiredHeaders: { authorization: `Bearer ${SECRETS.otlpToken}`, 'x-scope-orgid': SECRETS.otlpTenant },
    });
    failing = await startOtlpReceiver({
      path: '/otlp/v1/traces',
      requiredHeaders: { 'x-api-key': SECRETS.failingKey },
    });
    redirector = await startOtlpReceiver();
    langfuse = await startLangfuseDouble({ publicKey: SECRETS.lfPublic, secretKey: SECRETS.lfSecret });
    db = await createServerTestDatabase('larder_e2e');
    dataDir = mkdtempSync(join(tmpdir(), 'larder-e2e-traces-'));
    await start();
    const commands = larder.app.get(CommandBus);
    ({ organizationId } = await commands.execute(new CreateOrganizationCommand('traces')));
    key = (await commands.execute(new CreateApiKeyCommand(organizationId, 'first key', null, null))).value as string;
    c = new Mixedbread({ apiKey: key, baseURL, maxRetries: 0, timeout: 30_000 });
    store = (await c.stores.create({ name: 'trace-pantry' })).id;
    for (const d of DOCS)
      await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from(d.text), d.name, { type: 'text/markdown' }),
      });
    await until(
      'ingestion',
      async () => (await c.stores.retrieve(store)).file_counts!.completed === DOCS.length,
      120_000,
    );
  });

  afterAll(async () => {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    await larder?.close();
    await Promise.all([llm, otlp, failing, redirector, langfuse].map((d) => d?.close()));
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses URLs that lead to internal addresses, at create, before anything is stored: metadata, private, localhost by name, and a redirect', async () => {
    const otlpAt = (endpoint: string) =>
      api('POST', '/v1/trace-destinations', {
        name: 'ssrf',
        kind: 'otlp',
        otlp: { endpoint, headers: { authorization: `Bearer ${SECRETS.otlpToken}` } },
      });
    const metadata = await otlpAt('http://169.254.169.254/latest/meta-data/');
    expect(metadata.status).toBe(422);
    expect(metadata.body.detail[0]).toMatchObject({ loc: ['body', 'otlp', 'endpoint'], type: 'value_error' });
    expect(metadata.body.detail[0].msg).toMatch(/169\.254\.169\.254 is a link-local/);
    const privateAddress = await otlpAt('http://10.0.0.1:4318/v1/traces');
    expect(privateAddress.status).toBe(422);
    expect(privateAddress.body.detail[0].msg).toMatch(/10\.0\.0\.1 is a private address/);
    // a host name that resolves to loopback (a port of the allowed loopback address that is not allowed)
    const byName = await otlpAt('http://localhost:9/v1/traces');
    expect(byName.status).toBe(422);
    expect(byName.body.detail[0].msg).toMatch(/localhost resolves to 127\.0\.0\.1, a loopback address/);
    const lf = await api('POST', '/v1/trace-destinations', {
      name: 'ssrf',
      kind: 'langfuse',
      langfuse: { host: 'http://169.254.169.254', public_key: SECRETS.lfPublic, secret_key: SECRETS.lfSecret },
    });
    expect(lf.status).toBe(422);
    expect(lf.body.detail[0].loc).toEqual(['body', 'langfuse', 'host']);
    // an allowed endpoint that redirects to an internal address: the redirect is refused, not followed
    redirector.behave({ redirect: 'http://10.0.0.1/v1/traces', status: 307 });
    const redirected = await otlpAt(`${redirector.url}/v1/traces`);
    expect(redirected.status).toBe(422);
    expect(redirected.body.detail[0].msg).toMatch(
      /redirected to http:\/\/10\.0\.0\.1\/v1\/traces: 10\.0\.0\.1 is a private address/,
    );
    expect(redirector.requests.length).toBe(1);

    expect((await api('GET', '/v1/trace-destinations')).body).toMatchObject({ data: [], pagination: { total: 0 } });
    expect(await vaultRows()).toEqual([]);
  });

  it('never sends the configured headers to the origin an endpoint redirects to (the check fails there for want of them)', async () => {
    redirector.behave({ redirect: `${otlp.url}/v1/traces`, status: 307 });
    const before = otlp.requests.length;
    const headers = { authorization: `Bearer ${SECRETS.otlpToken}`, 'x-scope-orgid': SECRETS.otlpTenant };
    const res = await api('POST', '/v1/trace-destinations', {
      name: 'moved',
      kind: 'otlp',
      otlp: { endpoint: `${redirector.url}/v1/traces`, headers },
    });
    redirector.behave('accept');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/refused the credentials \(HTTP 401/);
    expect(redirector.requests.at(-1)?.headers['x-scope-orgid']).toBe(SECRETS.otlpTenant);
    const arrived = otlp.requests.slice(before);
    expect(arrived.map((r) => [r.method, r.path, r.headers['content-type']])).toEqual([
      ['POST', '/v1/traces', 'application/x-protobuf'],
    ]);
    expect(JSON.stringify(arrived)).not.toContain(SECRETS.otlpTenant);
    expect(JSON.stringify(arrived)).not.toContain(SECRETS.otlpToken);
    expect((await api('GET', '/v1/trace-destinations')).body).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it('checks credentials against the destination before storing them: a refused key pair or missing header is a 400 with the reason', async () => {
    const wrongKey = await api('POST', '/v1/trace-destinations', {
      name: 'lf',
      kind: 'langfuse',
      langfuse: { host: langfuse.url, public_key: SECRETS.lfPublic, secret_key: SECRETS.wrong },
    });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.error).toMatchObject({ type: 'destination_check_failed', code: 400 });
    expect(wrongKey.body.message).toMatch(
      /Langfuse at http:\/\/127\.0\.0\.1:\d+\/ refused the key pair \(HTTP 401: .*Invalid credentials/,
    );
    const noHeader = await api('POST', '/v1/trace-destinations', {
      name: 'otlp',
      kind: 'otlp',
      otlp: { endpoint: `${otlp.url}/v1/traces`, headers: { authorization: `Bearer ${SECRETS.otlpToken}` } },
    });
    expect(noHeader.status).toBe(400);
    expect(noHeader.body.message).toMatch(/\/v1\/traces refused the credentials \(HTTP 401/);
    const noEndpoint = await api('POST', '/v1/trace-destinations', {
      name: 'otlp',
      kind: 'otlp',
      otlp: { endpoint: `${otlp.url}/v1/metrics` },
    });
    expect(noEndpoint.status).toBe(400);
    expect(noEndpoint.body.message).toMatch(/has no OTLP\/HTTP traces endpoint there \(HTTP 404/);

    // bad input: 422 with the field, never the value of a credential
    const missing = await api('POST', '/v1/trace-destinations', {
      name: 'lf',
      kind: 'langfuse',
      langfuse: { host: langfuse.url, public_key: SECRETS.lfPublic, secret_key: 7 },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'langfuse', 'secret_key'], msg: 'Input should be a non-empty string', type: 'string_type' },
    ]);
    const mixed = await api('POST', '/v1/trace-destinations', {
      name: 'x',
      kind: 'otlp',
      langfuse: { host: langfuse.url },
      otlp: { endpoint: `${otlp.url}/v1/traces`, headers: { 'bad header': SECRETS.otlpToken, host: 'x' } },
    });
    expect(mixed.status).toBe(422);
    expect(mixed.body.detail.map((d: any) => d.loc.join('.'))).toEqual([
      'body.langfuse',
      'body.otlp.headers.bad header',
      'body.otlp.headers.host',
    ]);
    expect((await api('POST', '/v1/trace-destinations', { kind: 'otlp' })).body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
    ]);
    expect((await api('POST', '/v1/trace-destinations', { name: 'x', kind: 'otlp' })).body.detail).toEqual([
      { loc: ['body', 'otlp'], msg: 'Field required', type: 'missing' },
    ]);
    expect((await api('GET', '/v1/trace-destinations')).body.data).toEqual([]);
    expect(await vaultRows()).toEqual([]);
  });

  it('creates an OTLP, an OTLP/JSON and a Langfuse destination; credentials are write-only', async () => {
    const a = await api('POST', '/v1/trace-destinations', {
      name: 'collector',
      kind: 'otlp',
      otlp: {
        endpoint: `${otlp.url}/v1/traces`,
        headers: { Authorization: `Bearer ${SECRETS.otlpToken}`, 'X-Scope-OrgID': SECRETS.otlpTenant },
      },
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      object: 'trace_destination',
      name: 'collector',
      kind: 'otlp',
      enabled: true,
      trace_kinds: ['agentic_search', 'question_answering', 'chat_completion'],
      langfuse: null,
      otlp: {
        endpoint: `${otlp.url}/v1/traces`,
        protocol: 'http/protobuf',
        header_names: ['authorization', 'x-scope-orgid'],
      },
      credentials: { version: 1 },
      delivery: {
        status: 'idle',
        last_success_at: null,
        last_error: null,
        consecutive_failures: 0,
        pending: 0,
        delivered: 0,
        dropped: 0,
      },
    });
    ids.otlp = a.body.id;
    const f = await api('POST', '/v1/trace-destinations', {
      name: 'json collector',
      kind: 'otlp',
      trace_kinds: ['question_answering'],
      otlp: {
        endpoint: `${failing.url}/otlp/v1/traces`,
        protocol: 'http/json',
        headers: { 'x-api-key': SECRETS.failingKey },
      },
    });
    expect(f.status).toBe(201);
    ids.failing = f.body.id;
    const l = await api('POST', '/v1/trace-destinations', {
      name: 'langfuse',
      kind: 'langfuse',
      trace_kinds: ['question_answering', 'agentic_search'],
      langfuse: { host: langfuse.url, public_key: SECRETS.lfPublic, secret_key: SECRETS.lfSecret },
    });
    expect(l.status).toBe(201);
    expect(l.body).toMatchObject({
      kind: 'langfuse',
      langfuse: { host: `${langfuse.url}/` },
      otlp: null,
      trace_kinds: ['question_answering', 'agentic_search'],
    });
    ids.langfuse = l.body.id;
    // the Langfuse key pair was checked the way its SDKs do
    expect(langfuse.requests.filter((r) => r.path === '/api/public/projects').length).toBeGreaterThanOrEqual(2);

    const list = await api('GET', '/v1/trace-destinations');
    expect(list.body.data.map((d: any) => d.name)).toEqual(['langfuse', 'json collector', 'collector']);
    expect((await vaultRows()).length).toBe(3);
  });

  it('only unscoped keys manage trace destinations, and another organization sees none of them', async () => {
    const commands = larder.app.get(CommandBus);
    const scoped = (
      await commands.execute(
        new CreateApiKeyCommand(
          organizationId,
          'scoped',
          [{ method: 'create' }, { method: 'list' }, { method: 'read' }],
          null,
        ),
      )
    ).value as string;
    const other = await commands.execute(new CreateOrganizationCommand('other'));
    const otherKey = (await commands.execute(new CreateApiKeyCommand(other.organizationId, 'other', null, null)))
      .value as string;
    const as = async (k: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${baseURL}${path}`, {
        method,
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      responses.push(text);
      return { status: res.status, body: JSON.parse(text) };
    };
    const body = {
      name: 'x',
      kind: 'langfuse',
      langfuse: { host: langfuse.url, public_key: SECRETS.lfPublic, secret_key: SECRETS.lfSecret },
    };
    expect((await as(scoped, 'POST', '/v1/trace-destinations', body)).status).toBe(403);
    expect((await as(scoped, 'GET', '/v1/trace-destinations')).status).toBe(403);
    expect((await as(scoped, 'GET', `/v1/trace-destinations/${ids.langfuse}`)).status).toBe(403);
    expect((await as(otherKey, 'GET', '/v1/trace-destinations')).body.data).toEqual([]);
    for (const [method, b] of [['GET'], ['PATCH', { name: 'mine' }], ['DELETE']] as const)
      expect((await as(otherKey, method, `/v1/trace-destinations/${ids.langfuse}`, b)).status).toBe(404);
    expect((await get(ids.langfuse!)).body.name).toBe('langfuse');
  });

  it('a question answering run arrives as one trace: root, execute_tool and chat spans with the GenAI attributes, at OTLP and Langfuse', async () => {
    const query = 'How long does sauerkraut ferment in a crock?';
    const answer = await qa(query);
    expect(answer.answer).toContain('three weeks');
    const spans = await until('the QA trace at the OTLP receiver', () =>
      traceOf(otlp, 'invoke_agent question_answering', query),
    );
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent question_answering',
      'execute_tool store_search',
      'chat double-model',
    ]);
    const [root, tool, chat] = spans;
    expect(root.parentSpanId).toBeNull();
    expect([tool.parentSpanId, chat.parentSpanId]).toEqual([root.spanId, root.spanId]);
    expect(root.resource).toMatchObject({ 'service.name': 'larder', 'larder.organization.id': organizationId });
    expect(root.scope.name).toBe('larder.trace-export');
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'question_answering',
      'gen_ai.request.model': 'double-model',
      'gen_ai.usage.input_tokens': 321,
      'gen_ai.usage.output_tokens': 12,
      'larder.qa.mode': 'llm',
      'larder.store_ids': [store],
    });
    expect(JSON.parse(root.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: query }] },
    ]);
    expect(JSON.parse(root.attributes['gen_ai.output.messages'] as string)[0].parts[0].content).toBe(answer.answer);
    // the returned chunks: the same as the answer's sources
    const returned = JSON.parse(root.attributes['larder.results'] as string) as any[];
    expect(returned.map((r) => `${r.file_id}:${r.chunk_index}`)).toEqual(
      answer.sources!.map((s: any) => `${s.file_id}:${s.chunk_index}`),
    );
    expect(returned[0].filename).toBe('sauerkraut.md');
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'store_search',
      'gen_ai.tool.type': 'datastore',
    });
    expect(tool.attributes['gen_ai.tool.call.id']).toMatch(/^search_1_/);
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ query, top_k: 3 });
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.result'] as string).result_count).toBeGreaterThanOrEqual(1);
    expect(chat.kind).toBe(3); // CLIENT
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'double-model',
      'gen_ai.usage.input_tokens': 321,
      'gen_ai.usage.output_tokens': 12,
    });
    expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    for (const s of spans) expect(s.endTimeUnixNano).toBeGreaterThanOrEqual(s.startTimeUnixNano);
    expect(tool.startTimeUnixNano).toBeGreaterThanOrEqual(root.startTimeUnixNano);
    expect(chat.endTimeUnixNano).toBeLessThanOrEqual(root.endTimeUnixNano + 5_000_000n);
    // the collector got protobuf with the headers the destination was given
    const exp = otlp.exports.find((e) => e.spans.some((s) => s.traceId === root.traceId))!;
    expect(exp.contentType).toBe('application/x-protobuf');
    expect(exp.headers).toMatchObject({
      authorization: `Bearer ${SECRETS.otlpToken}`,
      'x-scope-orgid': SECRETS.otlpTenant,
    });

    // Langfuse: the same trace (ids derived from the run), on its OTLP path with basic auth; OTLP/JSON to the JSON collector
    const atLangfuse = await until('the QA trace at Langfuse', () =>
      traceOf(langfuse, 'invoke_agent question_answering', query),
    );
    expect(atLangfuse.map((s) => [s.traceId, s.spanId])).toEqual(spans.map((s) => [s.traceId, s.spanId]));
    const lfExport = langfuse.exports.find((e) => e.spans.some((s) => s.traceId === root.traceId))!;
    expect(lfExport.path).toBe('/api/public/otel/v1/traces');
    expect(lfExport.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SECRETS.lfPublic}:${SECRETS.lfSecret}`).toString('base64')}`,
    );
    const atJson = await until('the QA trace at the JSON collector', () =>
      traceOf(failing, 'invoke_agent question_answering', query),
    );
    expect(failing.exports[0].contentType).toBe('application/json');
    expect(atJson.map((s) => [s.name, s.spanId, s.attributes['gen_ai.usage.input_tokens'] ?? null])).toEqual(
      spans.map((s) => [s.name, s.spanId, s.attributes['gen_ai.usage.input_tokens'] ?? null]),
    );

    const a = await until('the delivery outcome', async () =>
      (await get(ids.otlp!)).body.delivery.delivered >= 1 ? (await get(ids.otlp!)).body : null,
    );
    expect(a.delivery).toMatchObject({ status: 'delivering', last_error: null, consecutive_failures: 0, pending: 0 });
    expect(Date.parse(a.delivery.last_success_at)).toBeGreaterThan(0);
  });

  it('an agentic search: planner turns as chat spans with usage, each search as an execute_tool span, the results on the root', async () => {
    const query = 'crock cabbage';
    const r = await c.stores.search({
      query,
      store_identifiers: [store],
      search_options: { agentic: { max_rounds: 3 } },
    });
    expect(r.data.map((d) => d.filename)).toEqual(['sauerkraut.md']);
    const spans = await until('the agentic trace', () => traceOf(otlp, 'invoke_agent agentic_search', query));
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent agentic_search',
      'execute_tool store_search',
      'chat double-model',
      'execute_tool store_search',
      'chat double-model',
    ]);
    const [root, search1, plan1, search2, plan2] = spans;
    expect(root.attributes).toMatchObject({
      'gen_ai.agent.name': 'agentic_search',
      'gen_ai.request.model': 'double-model',
      'gen_ai.usage.input_tokens': 110,
      'gen_ai.usage.output_tokens': 11,
      'larder.search.rounds_executed': 2,
    });
    expect(JSON.parse(root.attributes['larder.results'] as string).map((x: any) => x.filename)).toEqual([
      'sauerkraut.md',
    ]);
    expect(JSON.parse(root.attributes['gen_ai.retrieval.documents'] as string)).toEqual([
      { id: `${r.data[0].file_id}:${r.data[0].chunk_index}`, score: expect.any(Number) },
    ]);
    expect(JSON.parse(search1.attributes['gen_ai.tool.call.arguments'] as string).query).toBe(query);
    expect(JSON.parse(search2.attributes['gen_ai.tool.call.arguments'] as string).query).toBe(
      'salt brine fermentation',
    );
    expect([plan1.attributes['gen_ai.usage.input_tokens'], plan1.attributes['gen_ai.usage.output_tokens']]).toEqual([
      50, 5,
    ]);
    expect([plan2.attributes['gen_ai.usage.input_tokens'], plan2.attributes['gen_ai.usage.output_tokens']]).toEqual([
      60, 6,
    ]);
    expect(plan1.attributes['larder.turn.tool_calls']).toEqual(['search']);
    expect(plan2.attributes['larder.turn.tool_calls']).toEqual(['finish']);
    await until('the agentic trace at Langfuse', () => traceOf(langfuse, 'invoke_agent agentic_search', query));
    // the JSON collector exports question answering only
    expect(traceOf(failing, 'invoke_agent agentic_search')).toBeNull();
  });

  it('a chat completion with a hosted store_search: its model turns and tool call (sent only where chat completions are chosen)', async () => {
    const r = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'How long does sauerkraut take?' }],
      tools: [{ type: 'store_search', store_identifiers: ['trace-pantry'] }],
    });
    const spans = await until('the chat trace', () => traceOf(otlp, 'invoke_agent chat_completion'));
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent chat_completion',
      'chat double-model',
      'execute_tool store_search',
      'chat double-model',
    ]);
    expect(spans[0].attributes).toMatchObject({
      'gen_ai.response.id': r.id,
      'gen_ai.conversation.id': r.id,
      'gen_ai.usage.input_tokens': 130,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.request.stream': false,
    });
    expect(spans[0].attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(spans[2].attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_search_1',
      'gen_ai.tool.name': 'store_search',
    });
    expect(JSON.parse(spans[2].attributes['gen_ai.tool.call.arguments'] as string)).toMatchObject({
      query: 'sauerkraut fermentation',
    });
    expect([
      spans[1].attributes['gen_ai.response.finish_reasons'],
      spans[3].attributes['gen_ai.response.finish_reasons'],
    ]).toEqual([['tool_calls'], ['stop']]);
    // Langfuse here exports question answering and agentic search only
    await new Promise((res) => setTimeout(res, 500));
    expect(traceOf(langfuse, 'invoke_agent chat_completion')).toBeNull();
  });

  it('a failing destination shows why (get and list), retries with back-off, never holds up the others, and catches up', async () => {
    failing.behave({ status: 503, body: 'collector overloaded, try later', retryAfter: 0 });
    const q1 = 'Which salt share does sauerkraut need?';
    await qa(q1);
    await until('the OTLP collector receiving while the JSON one fails', () =>
      traceOf(otlp, 'invoke_agent question_answering', q1),
    );
    const failed = await until('a recorded failure', async () => {
      const d = (await get(ids.failing!)).body;
      return d.delivery.consecutive_failures >= 2 ? d : null;
    });
    expect(failed.delivery).toMatchObject({ status: 'failing', pending: 1 });
    expect(failed.delivery.last_error).toMatch(
      new RegExp(`^${failing.url}/otlp/v1/traces answered HTTP 503: collector overloaded, try later$`),
    );
    expect(Date.parse(failed.delivery.last_failure_at)).toBeGreaterThan(Date.parse(failed.delivery.last_success_at));
    const listed = (await api('GET', '/v1/trace-destinations')).body.data as any[];
    expect(listed.find((d) => d.id === ids.failing).delivery).toMatchObject({
      status: 'failing',
      last_error: expect.stringContaining('HTTP 503'),
    });
    expect(listed.find((d) => d.id === ids.otlp).delivery.status).toBe('delivering');

    // a destination that hangs: the others keep receiving, and requests answer as fast as ever
    failing.behave('hang');
    const q2 = 'When should the starter be fed?';
    const t0 = Date.now();
    await qa(q2);
    expect(Date.now() - t0).toBeLessThan(5_000);
    await until('the OTLP collector receiving while the JSON one hangs', () =>
      traceOf(otlp, 'invoke_agent question_answering', q2),
    );
    await until('a timeout recorded', async () =>
      /did not answer within 1500 ms/.test((await get(ids.failing!)).body.delivery.last_error ?? ''),
    );

    // it comes back: every run that waited arrives (at least once), and the failure stays readable with its time
    failing.behave('accept');
    await until(
      'the JSON collector catching up',
      () =>
        traceOf(failing, 'invoke_agent question_answering', q1) &&
        traceOf(failing, 'invoke_agent question_answering', q2),
      20_000,
    );
    const recovered = await until('the recovered outcome', async () => {
      const d = (await get(ids.failing!)).body;
      return d.delivery.status === 'delivering' && d.delivery.pending === 0 ? d : null;
    });
    expect(recovered.delivery).toMatchObject({
      consecutive_failures: 0,
      dropped: 0,
      last_error: expect.stringMatching(/did not answer within 1500 ms/),
    });
  });

  it('a destination that turns into a redirect to an internal address is refused at delivery, and says so', async () => {
    failing.behave({ redirect: 'http://169.254.169.254/latest/meta-data/iam/', status: 307 });
    const before = failing.requests.length;
    await qa('How is strawberry jam set?');
    const d = await until('a refused delivery', async () => {
      const b = (await get(ids.failing!)).body;
      return /redirected to/.test(b.delivery.last_error ?? '') ? b : null;
    });
    expect(d.delivery.status).toBe('failing');
    expect(d.delivery.last_error).toMatch(
      /redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/: 169\.254\.169\.254 is a link-local \(cloud metadata\) address/,
    );
    expect(failing.requests.length).toBeGreaterThan(before);
    failing.behave('accept');
    await until('recovery', async () => (await get(ids.failing!)).body.delivery.pending === 0);
  });

  it('rotation: new credentials are checked, then used; omitted credentials are kept; a new address needs them again', async () => {
    // the collector now wants other headers: the old ones fail, and an update with wrong ones is refused (nothing changes)
    otlp.requireHeaders({ authorization: `Bearer ${SECRETS.otlpToken2}`, 'x-scope-orgid': SECRETS.otlpTenant });
    const wrong = await api('PATCH', `/v1/trace-destinations/${ids.otlp}`, {
      otlp: { headers: { authorization: `Bearer ${SECRETS.otlpToken}` } },
    });
    expect(wrong.status).toBe(400);
    expect((await get(ids.otlp!)).body.credentials.version).toBe(1);
    const refsBefore = (await vaultRows()).map((r) => r.ref);
    const rotated = await api('PATCH', `/v1/trace-destinations/${ids.otlp}`, {
      otlp: { headers: { authorization: `Bearer ${SECRETS.otlpToken2}`, 'x-scope-orgid': SECRETS.otlpTenant } },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      credentials: { version: 2 },
      otlp: { header_names: ['authorization', 'x-scope-orgid'] },
    });
    // the superseded credentials are gone from the vault; one sealed set per destination remains
    const refsAfter = (await vaultRows()).map((r) => r.ref);
    expect(refsAfter.length).toBe(3);
    expect(refsAfter.filter((r) => !refsBefore.includes(r)).length).toBe(1);

    langfuse.setKeys(SECRETS.lfPublic2, SECRETS.lfSecret2);
    const moved = await api('PATCH', `/v1/trace-destinations/${ids.langfuse}`, {
      langfuse: { host: `http://localhost:${langfuse.port}` },
    });
    expect(moved.status).toBe(422);
    expect(moved.body.detail[0]).toMatchObject({ loc: ['body', 'langfuse', 'secret_key'], type: 'missing' });
    const half = await api('PATCH', `/v1/trace-destinations/${ids.langfuse}`, {
      langfuse: { public_key: SECRETS.lfPublic2 },
    });
    expect(half.status).toBe(422);
    expect(half.body.detail).toEqual([
      { loc: ['body', 'langfuse', 'secret_key'], msg: 'Field required', type: 'missing' },
    ]);
    const lf = await api('PATCH', `/v1/trace-destinations/${ids.langfuse}`, {
      name: 'langfuse prod',
      langfuse: { public_key: SECRETS.lfPublic2, secret_key: SECRETS.lfSecret2 },
    });
    expect(lf.status).toBe(200);
    expect(lf.body).toMatchObject({ name: 'langfuse prod', credentials: { version: 2 } });
    const renamed = await api('PATCH', `/v1/trace-destinations/${ids.langfuse}`, { name: 'langfuse' });
    expect(renamed.body.credentials).toEqual(lf.body.credentials);

    const query = 'What goes into sourdough?';
    await qa(query);
    const spans = await until('the trace with the rotated headers', () =>
      traceOf(otlp, 'invoke_agent question_answering', query),
    );
    expect(otlp.exports.find((e) => e.spans.some((s) => s.traceId === spans[0].traceId))!.headers.authorization).toBe(
      `Bearer ${SECRETS.otlpToken2}`,
    );
    const atLangfuse = await until('the trace with the rotated key pair', () =>
      traceOf(langfuse, 'invoke_agent question_answering', query),
    );
    expect(
      langfuse.exports.find((e) => e.spans.some((s) => s.traceId === atLangfuse[0].traceId))!.headers.authorization,
    ).toBe(`Basic ${Buffer.from(`${SECRETS.lfPublic2}:${SECRETS.lfSecret2}`).toString('base64')}`);
  });

  it('disabled and deleted destinations receive nothing more; delete discards the credentials', async () => {
    expect((await api('PATCH', `/v1/trace-destinations/${ids.failing}`, { enabled: false })).body.delivery.status).toBe(
      'disabled',
    );
    const del = await api('DELETE', `/v1/trace-destinations/${ids.otlp}`);
    expect(del).toEqual({ status: 200, body: { id: ids.otlp, object: 'trace_destination', deleted: true } });
    expect((await get(ids.otlp!)).status).toBe(404);
    expect((await api('DELETE', `/v1/trace-destinations/${ids.otlp}`)).status).toBe(404);
    expect((await vaultRows()).length).toBe(2);
    const [toOtlp, toJson] = [otlp.exports.length, failing.exports.length];
    const query = 'Is jam boiled with lemon juice?';
    await qa(query);
    await until('the run at Langfuse', () => traceOf(langfuse, 'invoke_agent question_answering', query));
    await new Promise((r) => setTimeout(r, 1000));
    expect([otlp.exports.length, failing.exports.length]).toEqual([toOtlp, toJson]);
    expect((await api('GET', '/v1/trace-destinations')).body.data.map((d: any) => d.name)).toEqual([
      'langfuse',
      'json collector',
    ]);
  });

  it('master-key rotation, then a restart: queued runs survive, and the destinations deliver with their re-sealed credentials', async () => {
    // a run waits for a failing destination when the server stops
    await api('PATCH', `/v1/trace-destinations/${ids.failing}`, { enabled: true });
    failing.behave({ status: 503 });
    const waiting = 'Does the jam set on a cold plate?';
    await qa(waiting);
    await until('a queued, failed delivery', async () => {
      const d = (await get(ids.failing!)).body.delivery;
      return d.pending === 1 && d.consecutive_failures >= 1;
    });
    const keysBefore = new Set((await vaultRows()).map((r) => r.key_id));
    const rotation = await rotateMasterKey(larder.infra.keyring, larder.infra.secretVault);
    expect(rotation.resealed).toBe(2);
    expect(keysBefore.has(rotation.currentKeyId)).toBe(false);
    await larder.close();
    failing.behave('accept');
    await start();
    const rows = await vaultRows();
    expect(new Set(rows.map((r) => r.key_id))).toEqual(new Set([rotation.currentKeyId]));
    expect(Object.keys(JSON.parse(readFileSync(join(dataDir, 'secrets-keyring.json'), 'utf8')).keys)).toEqual([
      rotation.currentKeyId,
    ]);
    await until('the run queued before the restart', () =>
      traceOf(failing, 'invoke_agent question_answering', waiting),
    );
    const query = 'How long does the dough rise?';
    await qa(query);
    await until('Langfuse after the restart', () => traceOf(langfuse, 'invoke_agent question_answering', query));
    await until('the JSON collector after the restart', () =>
      traceOf(failing, 'invoke_agent question_answering', query),
    );
  });

  it('no credential appears in any response, any row of any table (events, read models, queue, vault), or any log line', async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    let dump = '';
    try {
      const tables = (
        await pg.query<{ s: string; t: string }>(
          `SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
        )
      ).rows;
      expect(tables.map((x) => x.t)).toEqual(
        expect.arrayContaining([
          'secret_vault_v1',
          'trace_destinations_v1',
          'trace_deliveries_v1',
          'trace_delivery_outcomes_v1',
        ]),
      );
      for (const { s, t } of tables)
        dump += (await pg.query(`SELECT x::text AS row FROM "${s}"."${t}" x`)).rows
          .map((r: { row: string }) => r.row)
          .join('\n');
    } finally {
      await pg.end();
    }
    expect(dump).toContain('TraceDestinationCreated');
    expect(dump).toContain('sec_');
    expect(logs.join('')).toContain('TraceExport');
    const basic = (p: string, s: string) => Buffer.from(`${p}:${s}`).toString('base64');
    const values = [
      ...Object.values(SECRETS),
      basic(SECRETS.lfPublic, SECRETS.lfSecret),
      basic(SECRETS.lfPublic2, SECRETS.lfSecret2),
    ];
    for (const secret of values) {
      expect([secret, responses.filter((r) => r.includes(secret)).length]).toEqual([secret, 0]);
      expect([secret, dump.includes(secret)]).toEqual([secret, false]);
      expect([secret, logs.filter((l) => l.includes(secret)).length]).toEqual([secret, 0]);
    }
    expect(responses.length).toBeGreaterThan(30);
  });

  it('exports only the runs’ spans: no tracer of Larder’s own is installed, and every span received is one of a run', () => {
    // nothing in the process records spans (a span started through the global API is a no-op)
    const probe = trace.getTracer('probe').startSpan('probe');
    expect(probe.isRecording()).toBe(false);
    probe.end();
    const received = [otlp, failing, langfuse].flatMap((d) => d.spans());
    expect(received.length).toBeGreaterThan(20);
    for (const s of received) {
      expect([s.scope.name, s.attributes['gen_ai.operation.name']]).toEqual([
        'larder.trace-export',
        expect.stringMatching(/^(invoke_agent|chat|execute_tool)$/),
      ]);
      expect(
        received.some((r) => r.traceId === s.traceId && r.parentSpanId === null && r.name.startsWith('invoke_agent ')),
      ).toBe(true);
    }
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import {
  ChatCompletionsDouble,
  ChatCompletionRequestBody,
  startChatCompletionsDouble,
} from '@larder/ai/testing/chat-completions-double';
import { ToolTicketSigner } from '@larder/search/tool-tickets/tool-ticket.signer';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { readEvents } from './support/sse';

jest.setTimeout(180_000);

const SIGNING_SECRET = 'chat-e2e-signing-secret-0123456789';
const DOCS: Array<{ name: string; text: string }> = [
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage and mix it with two percent salt. Lactic fermentation turns the cabbage sour in about three weeks.\n',
  },
  {
    name: 'jam.md',
    text: '# Strawberry jam\n\nBoil strawberries with sugar and lemon juice until the jam sets on a cold plate.\n',
  },
];

const toolMessages = (b: ChatCompletionRequestBody) =>
  b.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

/** `data:` payloads of a server-sent event stream read as text (the SDK has no SSE decoder: it returns the body as text). */
const dataLines = (text: string) =>
  text
    .split(/\n\n/)
    .map((e) =>
      e
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice(6),
    )
    .filter((x): x is string => x !== undefined)
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));

describe('Chat completions (official client, OpenAI-compatible model double): hosted store tools, citations, tool tickets, streaming, stored conversations', () => {
  let double: ChatCompletionsDouble;
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  let orgId: string;
  let store: string;
  const fileIds: Record<string, string> = {};

  const req = (
    path: string,
    init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${t.baseURL}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${init.key ?? key}`, 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const get = async (path: string, k = key) => (await (await req(path, { key: k })).json()) as any;
  const until = async (path: string, ok: (body: any) => boolean, k = key) => {
    let last: any;
    for (
      const deadline = Date.now() + 30_000;
      Date.now() < deadline;
      await new Promise((res) => setTimeout(res, 100))
    ) {
      last = await get(path, k);
      if (ok(last)) return last;
    }
    throw new Error(`${path} never answered as expected; last answer: ${JSON.stringify(last)}`);
  };
  const usage = async (metric: string, k = key) =>
    Number((await get('/v1/billing/summary', k)).usages[metric]?.current ?? 0);

  beforeAll(async () => {
    double = await startChatCompletionsDouble();
    t = await startTestLarder({
      env: { LARDER_LLM_URL: double.url, LARDER_LLM_MODEL: 'double-model', LARDER_SIGNING_SECRET: SIGNING_SECRET },
    });
    const org = await t.newOrganization('chat');
    key = org.apiKey;
    orgId = org.organizationId;
    c = t.client(key);
    store = (await c.stores.create({ name: 'chat-pantry' })).id;
    for (const d of DOCS)
      fileIds[d.name] = (
        await c.stores.files.upload({
          storeIdentifier: store,
          file: await toFile(Buffer.from(d.text), d.name, { type: 'text/markdown' }),
        })
      ).id;
    for (;;) {
      const st = await c.stores.retrieve(store);
      if (st.file_counts!.completed === DOCS.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  /** The model: searches once, then answers citing the sauerkraut passage by its number. */
  const searchThenCite = (body: ChatCompletionRequestBody) => {
    const results = toolMessages(body);
    if (!results.length)
      return {
        toolCalls: [
          {
            id: 'call_search_1',
            name: 'store_search',
            arguments: { query: 'how long does sauerkraut ferment', top_k: 2 },
          },
        ],
        usage: { prompt_tokens: 40, completion_tokens: 8 },
      };
    const n = /\[(\d+)\] sauerkraut\.md/.exec(results.join('\n'))?.[1];
    return {
      content: `It turns sour in about three weeks <cite i="${n}"/>.`,
      usage: { prompt_tokens: 90, completion_tokens: 12 },
    };
  };

  it('runs a hosted store_search loop: the model searches, answers with a cited passage; annotations point at the file', async () => {
    double.handle(searchThenCite);
    const n = double.requests.length;
    const r = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'How long does sauerkraut take?' }],
      tools: [{ type: 'store_search', store_identifiers: ['chat-pantry'] }],
      include: ['store_search_call.results'],
    });
    expect(r.object).toBe('chat.completion');
    expect(r.id).toMatch(/^chatcmpl-/);
    const msg = r.choices[0].message;
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(msg.content).toBe('It turns sour in about three weeks .');
    expect(msg.annotations).toEqual([
      {
        type: 'file_citation',
        file_id: fileIds['sauerkraut.md'],
        filename: 'sauerkraut.md',
        index: 'It turns sour in about three weeks '.length,
        chunk_id: `${fileIds['sauerkraut.md']}:0`,
        store_id: store,
      },
    ]);
    expect(r.hosted_tool_calls).toHaveLength(1);
    expect(r.hosted_tool_calls![0]).toMatchObject({
      type: 'store_search_call',
      id: 'call_search_1',
      status: 'completed',
      queries: ['how long does sauerkraut ferment'],
      store: 'chat-pantry',
      error: null,
    });
    expect((r.hosted_tool_calls![0] as any).results[0].filename).toBeDefined();
    expect(r.usage).toMatchObject({ prompt_tokens: 130, completion_tokens: 20, total_tokens: 150 });
    expect(r.tool_tickets).toEqual([]);

    const sent = double.requests.slice(n).map((x) => x.body);
    expect(sent).toHaveLength(2);
    expect(sent[0].tools!.map((x) => x.function.name)).toEqual(['store_search']);
    expect(JSON.stringify(sent[0].tools![0].function.parameters)).not.toContain('store_identifiers');
    expect(String(sent[0].messages[0].content)).toContain('<cite i="N"/>');
    expect(toolMessages(sent[1])[0]).toMatch(/\[\d+\] sauerkraut\.md/);

    // the completion event lists the model calls and the hosted search, tied to the store it touched
    const ev = (
      await until('/v1/events?event_type=completion', (b) => b.data?.some((e: any) => e.completion_id === r.id))
    ).data.find((e: any) => e.completion_id === r.id);
    expect(ev).toMatchObject({
      type: 'completion',
      store_ids: [store],
      model: 'double-model',
      finish_reason: 'stop',
      messages_count: 2,
      token_usage: { prompt_tokens: 130, completion_tokens: 20, total_tokens: 150 },
    });
    expect(ev.tool_calls.map((x: any) => x.tool_name)).toEqual(['generation', 'store_search', 'generation']);
    expect(ev.tool_calls[1]).toMatchObject({
      tool_call_id: 'call_search_1',
      tool_type: 'datastore',
      arguments: { query: 'how long does sauerkraut ferment' },
      duration: expect.stringMatching(/^PT/),
    });
    // it names the conversation and the answer; model turns are function records with their text and tool calls; the search says what it found
    expect(ev).toMatchObject({
      endpoint: 'chat.completions',
      title: 'How long does sauerkraut take?',
      user_message: 'How long does sauerkraut take?',
      answer: 'It turns sour in about three weeks .',
      persisted: false,
      total_time: expect.stringMatching(/^PT[\d.]+S$/),
    });
    expect(ev.tool_calls[0]).toMatchObject({
      tool_name: 'generation',
      tool_type: 'function',
      arguments: { messages_count: 2 },
      result: { content: null, tool_calls: [{ id: 'call_search_1', name: 'store_search' }] },
    });
    expect(ev.tool_calls[2]).toMatchObject({
      tool_type: 'function',
      arguments: { messages_count: 4 },
      result: {
        content: expect.stringMatching(/^It turns sour in about three weeks <cite i="\d+"\/>\.$/),
        tool_calls: [],
      },
    });
    expect(ev.tool_calls[1].result).toEqual({
      queries: ['how long does sauerkraut ferment'],
      result_count: 2,
      results: [
        { file_id: fileIds['sauerkraut.md'], chunk_index: 0, score: expect.any(Number) },
        { file_id: expect.any(String), chunk_index: expect.any(Number), score: expect.any(Number) },
      ],
    });
    // its search is a store search event linked to the completion, billed at the agent rate with the completion
    const search = (
      await until(`/v1/stores/${store}/events?event_type=search`, (b) =>
        b.data?.some((e: any) => e.completion_id === r.id),
      )
    ).data.find((e: any) => e.completion_id === r.id);
    expect(search).toMatchObject({
      query: 'how long does sauerkraut ferment',
      tool_call_id: 'call_search_1',
      tool_call_via: 'hosted_tool',
    });
    await until(
      '/v1/billing/summary',
      (s) =>
        Number(s.usages.completions?.current) >= 1 &&
        Number(s.usages.agent_tool_calls?.current) >= 1 &&
        Number(s.usages.model_prompt_tokens?.current) >= 130,
    );
    expect(await usage('searches')).toBe(0);
  });

  it('returns client function tool calls with one-shot tool tickets; a ticket redeems one search (second use 409), billed once at the agent rate', async () => {
    double.handle(() => ({ toolCalls: [{ id: 'call_fn_1', name: 'lookup_pantry', arguments: { query: 'jam' } }] }));
    const r = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'Look it up yourself' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup_pantry',
            description: 'search my pantry',
            parameters: { type: 'object', properties: { query: { type: 'string' } } },
          },
        },
      ],
    });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(r.choices[0].message.tool_calls).toEqual([
      { id: 'call_fn_1', type: 'function', function: { name: 'lookup_pantry', arguments: '{"query":"jam"}' } },
    ]);
    expect(r.tool_tickets).toHaveLength(1);
    const [ticket] = r.tool_tickets!;
    expect(ticket.tool_call_id).toBe('call_fn_1');
    expect(ticket.expires_at).toBeGreaterThan(Date.now() / 1000);

    const before = { agent: await usage('agent_tool_calls'), searches: await usage('searches') };
    const found = await c.stores.search(
      { query: 'strawberry jam', store_identifiers: [store] },
      { headers: { 'X-Mxbai-Tool-Ticket': ticket.ticket } },
    );
    expect(found.data[0].filename).toBe('jam.md');
    await expect(
      c.stores.search(
        { query: 'strawberry jam', store_identifiers: [store] },
        { headers: { 'X-Mxbai-Tool-Ticket': ticket.ticket } },
      ),
    ).rejects.toMatchObject({ status: 409 });
    const again = await req('/v1/stores/grep', {
      body: { pattern: 'jam', store_identifiers: [store] },
      headers: { 'x-mxbai-tool-ticket': ticket.ticket },
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: { code: 409, type: 'tool_ticket_used' },
      message: expect.any(String),
    });

    const ev = (
      await until(`/v1/stores/${store}/events?event_type=search`, (b) =>
        b.data?.some((e: any) => e.tool_call_id === 'call_fn_1'),
      )
    ).data.filter((e: any) => e.tool_call_id === 'call_fn_1');
    expect(ev).toEqual([
      expect.objectContaining({ completion_id: r.id, tool_call_via: 'tool_ticket', query: 'strawberry jam' }),
    ]);
    await until('/v1/billing/summary', (s) => Number(s.usages.agent_tool_calls?.current) === before.agent + 1);
    expect(await usage('searches')).toBe(before.searches);
  });

  it('refuses a tampered, an expired and another organization’s ticket (403) without searching or billing', async () => {
    double.handle(() => ({ toolCalls: [{ id: 'call_fn_2', name: 'lookup', arguments: {} }] }));
    const r = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'lookup' } }],
    });
    const ticket = r.tool_tickets![0].ticket;
    const before = { agent: await usage('agent_tool_calls'), searches: await usage('searches') };
    const search = (tk: string, k = key) =>
      req('/v1/stores/search', {
        key: k,
        body: { query: 'jam', store_identifiers: [store] },
        headers: { 'x-mxbai-tool-ticket': tk },
      });

    const [prefix, claims, mac] = ticket.split('.');
    const forged = JSON.parse(Buffer.from(claims, 'base64url').toString());
    forged.exp += 3600;
    const tampered = await search(`${prefix}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`);
    expect(tampered.status).toBe(403);
    expect(await tampered.json()).toMatchObject({ error: { code: 403, type: 'invalid_tool_ticket' } });
    expect((await search('not-a-ticket')).status).toBe(403);

    const expired = new ToolTicketSigner(SIGNING_SECRET).sign({
      ticketId: 'e2e-expired',
      organizationId: orgId,
      completionId: r.id,
      toolCallId: 'call_fn_2',
      expiresAt: Math.floor(Date.now() / 1000) - 5,
    });
    const exp = await search(expired);
    expect(exp.status).toBe(403);
    expect(await exp.json()).toMatchObject({ error: { type: 'tool_ticket_expired' } });

    const other = await t.newOrganization('chat-other');
    await t.client(other.apiKey).stores.create({ name: 'chat-pantry' });
    const foreign = await req('/v1/stores/search', {
      key: other.apiKey,
      body: { query: 'jam', store_identifiers: ['chat-pantry'] },
      headers: { 'x-mxbai-tool-ticket': ticket },
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { type: 'tool_ticket_wrong_organization' } });

    // the ticket still works once for its own organization: nothing above redeemed it
    expect((await search(ticket)).status).toBe(200);
    await until('/v1/billing/summary', (s) => Number(s.usages.agent_tool_calls?.current) === before.agent + 1);
    expect(await usage('searches')).toBe(before.searches);
    expect(await usage('agent_tool_calls', other.apiKey)).toBe(0);
  });

  it('streams chat.completion.chunk events through the client, hosted tool calls as extra chunks, ending with [DONE]', async () => {
    double.handle(searchThenCite);
    const text = (await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'How long does sauerkraut take?' }],
      tools: [{ type: 'store_search', store_identifiers: [store] }],
      stream: true,
    })) as unknown as string;
    expect(typeof text).toBe('string');
    const events = dataLines(text);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1);
    expect(chunks.every((x) => x.object === 'chat.completion.chunk' && x.id === chunks[0].id)).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const hosted = chunks.filter((x) => x.hosted_tool_calls).map((x) => x.hosted_tool_calls[0].status);
    expect(hosted).toEqual(['in_progress', 'completed']);
    const content = chunks.map((x) => x.choices[0]?.delta?.content ?? '').join('');
    expect(content).toBe('It turns sour in about three weeks .');
    expect(chunks.filter((x) => x.choices[0]?.delta?.content).length).toBeGreaterThan(3);
    const last = chunks.at(-1);
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.choices[0].delta.annotations[0]).toMatchObject({
      type: 'file_citation',
      filename: 'sauerkraut.md',
      file_id: fileIds['sauerkraut.md'],
    });
    expect(last.usage).toMatchObject({ prompt_tokens: 130, completion_tokens: 20 });
  });

  it('store: true keeps the turn; previous_completion_id continues it (the model sees the earlier messages; root kept); other organizations get 404', async () => {
    double.handle((body) => {
      const saw = body.messages.map((m) => `${m.role}:${String(m.content)}`).join('|');
      return saw.includes('What is my name?')
        ? saw.includes('user:My name is Ada') && saw.includes('assistant:Hello Ada')
          ? 'Your name is Ada.'
          : 'I do not know.'
        : 'Hello Ada';
    });
    const first = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'My name is Ada' }],
      store: true,
      metadata: { thread: 't1' },
    });
    expect(first.choices[0].message.content).toBe('Hello Ada');
    expect((first as any).root_completion_id).toBe(first.id);
    const second = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'What is my name?' }],
      previous_completion_id: first.id,
      store: true,
    });
    expect(second.choices[0].message.content).toBe('Your name is Ada.');
    expect((second as any).root_completion_id).toBe(first.id);
    const third = await c.chat.createCompletion({
      messages: [{ role: 'user', content: 'What is my name?' }],
      previous_completion_id: second.id,
    });
    expect((third as any).root_completion_id).toBe(first.id);
    expect(double.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual([
      'My name is Ada',
      'Hello Ada',
      'What is my name?',
      'Your name is Ada.',
      'What is my name?',
    ]);

    // the completion events: the conversation's title is its first user message, each answer bounded, persisted = stored
    const events = (
      await until('/v1/events?event_type=completion', (x) => x.data?.some((e: any) => e.completion_id === third.id))
    ).data;
    const eventOf = (id: string) => events.find((e: any) => e.completion_id === id);
    expect(eventOf(first.id)).toMatchObject({
      title: 'My name is Ada',
      user_message: 'My name is Ada',
      answer: 'Hello Ada',
      persisted: true,
    });
    expect(eventOf(third.id)).toMatchObject({
      title: 'My name is Ada',
      user_message: 'What is my name?',
      answer: 'Your name is Ada.',
      persisted: false,
    });
    double.handle(() => 'y'.repeat(10_000));
    const long = await c.chat.createCompletion({ messages: [{ role: 'user', content: `  ${'x'.repeat(5000)}` }] });
    expect(long.choices[0].message.content).toHaveLength(10_000);
    const bounded = (
      await until('/v1/events?event_type=completion', (x) => x.data?.some((e: any) => e.completion_id === long.id))
    ).data.find((e: any) => e.completion_id === long.id);
    expect([
      bounded.title.length,
      bounded.user_message.length,
      bounded.answer.length,
      bounded.tool_calls[0].result.content.length,
    ]).toEqual([80, 2000, 4000, 500]);

    const other = await t.newOrganization('chat-thief');
    await expect(
      t
        .client(other.apiKey)
        .chat.createCompletion({ messages: [{ role: 'user', content: 'x' }], previous_completion_id: first.id }),
    ).rejects.toMatchObject({ status: 404 });
    // a completion that was not stored cannot be continued
    await expect(
      c.chat.createCompletion({ messages: [{ role: 'user', content: 'x' }], previous_completion_id: third.id }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('bad requests are 422 with the location of each problem', async () => {
    const res = await req('/v1/chat/completions', {
      body: {
        messages: [
          { role: 'robot', content: 'x' },
          { role: 'tool', content: 'y' },
        ],
        tools: [{ type: 'store_search', filters: { key: 'a', operator: 'nope', value: 1 } }],
        temperature: 7,
        max_tool_calls: -1,
      },
    });
    expect(res.status).toBe(422);
    const locs = ((await res.json()) as any).detail.map((d: any) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.messages.0.role',
        'body.messages.1.tool_call_id',
        'body.temperature',
        'body.max_tool_calls',
      ]),
    );
    expect(locs.some((l: string) => l.startsWith('body.tools.0.filters'))).toBe(true);
    expect((await req('/v1/chat/completions', { body: {} })).status).toBe(422);
  });

  it('a streamed completion whose client hangs up is recorded and billed for what it got: the hosted search and the model tokens spent so far', async () => {
    const before = {
      completions: await usage('completions'),
      completion: await usage('model_completion_tokens'),
      searches: await usage('searches'),
    };
    double.handle((body) =>
      toolMessages(body).length
        ? { content: Array.from({ length: 300 }, (_, i) => `word${i}`).join(' '), tokenDelayMs: 40 }
        : { toolCalls: [{ name: 'store_search', arguments: { query: 'sauerkraut weeks' } }] },
    );
    const gone = new AbortController();
    const res = await fetch(`${t.baseURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'hang up on me' }],
        tools: [{ type: 'store_search', store_identifiers: [store] }],
        stream: true,
        metadata: { case: 'hang-up' },
      }),
      signal: gone.signal,
    });
    let id = '';
    let words = 0;
    for await (const e of readEvents(res.body!)) {
      if (e.data === '[DONE]') break;
      const chunk = JSON.parse(e.data);
      id = chunk.id;
      if (chunk.choices?.[0]?.delta?.content?.includes('word') && ++words === 3) break;
    }
    gone.abort();
    expect(id).toMatch(/^chatcmpl-/);
    const ev = (
      await until('/v1/events?event_type=completion', (b) => b.data?.some((e: any) => e.completion_id === id))
    ).data.find((e: any) => e.completion_id === id);
    expect(ev).toMatchObject({
      finish_reason: 'client_disconnected',
      store_ids: [store],
      stream: true,
      metadata: { case: 'hang-up' },
    });
    expect(ev.token_usage.prompt_tokens).toBeGreaterThan(0);
    expect(ev.token_usage.completion_tokens).toBeGreaterThan(0);
    expect(ev.tool_calls.some((x: any) => x.tool_name === 'store_search')).toBe(true);
    await until('/v1/billing/summary', (s) => Number(s.usages.completions?.current ?? 0) >= before.completions + 1);
    expect(await usage('model_completion_tokens')).toBeGreaterThan(before.completion);
    double.handle(() => 'unused');
  });
});

describe('Chat completions without a model', () => {
  it('answers 400 in the contract shape saying how to configure one (not a 5xx the client would retry)', async () => {
    const t = await startTestLarder();
    try {
      const { apiKey } = await t.newOrganization('no-llm');
      const res = await fetch(`${t.baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({
        error: { code: 400, type: 'llm_not_configured' },
        message: expect.stringContaining('LARDER_LLM_URL'),
      });
      expect(body.message).toContain('LARDER_LLM_MODEL');
    } finally {
      await t.close();
    }
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import {
  ChatCompletionsDouble,
  ChatCompletionRequestBody,
  startChatCompletionsDouble,
} from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { allEvents, readEvents } from './support/sse';

jest.setTimeout(180_000);

const DOCS: Array<{ name: string; text: string }> = [
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage and mix it with two percent salt. Lactic fermentation turns the cabbage sour in about three weeks.\n',
  },
  {
    name: 'jam.md',
    text: '# Strawberry jam\n\nBoil strawberries with sugar and lemon juice until the jam sets on a cold plate.\n',
  },
  { name: 'bread.md', text: '# Sourdough\n\nFeed the starter the evening before and let the dough rise overnight.\n' },
];

const lastUser = (b: ChatCompletionRequestBody) => {
  const content = [...b.messages].reverse().find((m) => m.role === 'user')?.content;
  return typeof content === 'string' ? content : '';
};

describe('Answering with a model: question answering and agentic search against an OpenAI-compatible endpoint (local double of the wire format)', () => {
  let double: ChatCompletionsDouble;
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  let store: string;

  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  const get = async (path: string) =>
    (await (await fetch(`${t.baseURL}${path}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
  const until = async (path: string, ok: (body: any) => boolean) => {
    let last: any;
    for (
      const deadline = Date.now() + 30_000;
      Date.now() < deadline;
      await new Promise((res) => setTimeout(res, 100))
    ) {
      last = await get(path);
      if (ok(last)) return last;
    }
    throw new Error(`${path} never answered as expected; last answer: ${JSON.stringify(last)}`);
  };

  beforeAll(async () => {
    double = await startChatCompletionsDouble({ apiKey: 'sk-answering-secret' });
    t = await startTestLarder({
      env: {
        LARDER_LLM_URL: double.url,
        LARDER_LLM_MODEL: 'double-model',
        LARDER_LLM_API_KEY: 'sk-answering-secret',
        LARDER_LLM_TIMEOUT_MS: '1500',
        LARDER_LLM_MAX_RETRIES: '2',
      },
    });
    const org = await t.newOrganization('answering-llm');
    key = org.apiKey;
    c = t.client(key);
    store = (await c.stores.create({ name: 'model-pantry' })).id;
    for (const d of DOCS)
      await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from(d.text), d.name, { type: 'text/markdown' }),
      });
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

  it('question answering asks the model with the numbered sources and returns its cited answer; usage reaches the qa event and billing', async () => {
    const n = double.requests.length;
    double.reply({
      content: 'It turns sour in about three weeks <cite i="0"/>.',
      usage: { prompt_tokens: 120, completion_tokens: 12 },
    });
    const r = await c.stores.questionAnswering({
      query: 'How long does sauerkraut take?',
      store_identifiers: [store],
      top_k: 2,
      instructions: 'Answer in one sentence.',
    });
    expect(r.answer).toBe('It turns sour in about three weeks <cite i="0"/>.');
    expect((r as any).model).toBe('double-model');
    expect(r.sources![0].filename).toBe('sauerkraut.md');
    expect(double.requests.length).toBe(n + 1);
    const sent = double.requests[n];
    expect(sent.headers.authorization).toBe('Bearer sk-answering-secret');
    expect(sent.body.model).toBe('double-model');
    expect(sent.body.stream).toBe(true);
    const system = String(sent.body.messages[0].content);
    expect(system).toContain('<cite i="2"/>');
    expect(system).toContain('Answer in one sentence.');
    expect(lastUser(sent.body)).toContain('[0] sauerkraut.md\n# Sauerkraut');
    expect(lastUser(sent.body)).toContain('Question: How long does sauerkraut take?');

    const qa = await until(`/v1/stores/${store}/events?event_type=qa`, (b) => b.data?.length >= 1);
    expect(qa.data[0]).toMatchObject({
      model: 'double-model',
      mode: 'llm',
      citations: [0],
      token_usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 },
    });
    expect(JSON.stringify(qa)).not.toContain('sk-answering-secret');
    await until(
      '/v1/billing/summary',
      (s) =>
        Number(s.usages.model_prompt_tokens?.current) >= 120 && Number(s.usages.model_completion_tokens?.current) >= 12,
    );
  });

  it('streams the model’s answer as it is generated: sources, one delta per token, the whole response, [DONE]', async () => {
    double.reply({ content: 'Three weeks of lactic fermentation <cite i="0"/>.', tokenDelayMs: 10 });
    const res = await post('/v1/stores/question-answering', {
      query: 'How long does sauerkraut ferment?',
      store_identifiers: [store],
      stream: true,
    });
    const events = await allEvents(res);
    const names = events.map((e) => e.event ?? e.data);
    expect(names[0]).toBe('qa.sources');
    const deltas = events.filter((e) => e.event === 'qa.answer.delta').map((e) => e.data.delta);
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.join('')).toBe('Three weeks of lactic fermentation <cite i="0"/>.');
    expect(names.slice(-2)).toEqual(['qa.completed', '[DONE]']);
    expect(events.at(-2)!.data).toMatchObject({ answer: deltas.join(''), model: 'double-model' });
  });

  it('a 429 from the model is retried; a model that never answers fails with 504 in the error shape, not a hang', async () => {
    const n = double.requests.length;
    double.reply({ kind: 'error', status: 429, message: 'slow down', retryAfter: 0 }, 'Three weeks <cite i="0"/>.');
    const ok = await c.stores.questionAnswering({ query: 'sauerkraut time', store_identifiers: [store] });
    expect(ok.answer).toBe('Three weeks <cite i="0"/>.');
    expect(double.requests.length).toBe(n + 2);

    double.reply({ kind: 'hang' });
    const res = await post('/v1/stores/question-answering', { query: 'sauerkraut time', store_identifiers: [store] });
    expect(res.status).toBe(504);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: { type: 'llm_timeout', code: 504 }, message: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain('sk-answering-secret');

    // streamed: the failure arrives as an error event after the sources, and the stream ends without [DONE]
    double.reply({ kind: 'hang' });
    const streamed = await allEvents(
      await post('/v1/stores/question-answering', {
        query: 'sauerkraut time',
        store_identifiers: [store],
        stream: true,
      }),
    );
    expect(streamed.map((e) => e.event)).toEqual(['qa.sources', 'error']);
    expect(streamed[1].data).toMatchObject({ error: { type: 'llm_timeout', code: 504 } });
  });

  it('agentic search runs the model’s tool loop: it searches its queries, then finishes with the ids it judged relevant', async () => {
    const n = double.requests.length;
    double.handle((body) => {
      const names = (body.tools ?? []).map((x) => x.function.name);
      const shown = lastUser(body);
      if (names.includes('search') && !shown.includes('Queries so far: "crock cabbage", "salt brine fermentation"'))
        return {
          toolCalls: [{ name: 'search', arguments: { queries: ['salt brine fermentation'] } }],
          usage: { prompt_tokens: 50, completion_tokens: 5 },
        };
      const id = /\[(r\d+)\] sauerkraut\.md/.exec(shown)?.[1];
      return {
        toolCalls: [{ name: 'finish', arguments: { relevant: [id], rationale: 'only the sauerkraut note answers' } }],
        usage: { prompt_tokens: 60, completion_tokens: 6 },
      };
    });
    const r = await c.stores.search({
      query: 'crock cabbage',
      store_identifiers: [store],
      search_options: { agentic: { max_rounds: 3, verbose: true } },
    });
    expect(r.data.map((d) => d.filename)).toEqual(['sauerkraut.md']);
    const calls = double.requests.slice(n);
    expect(calls.length).toBe(2);
    expect(calls[0].body.tool_choice).toBe('required');
    expect(String(calls[1].body.messages.at(-1)!.content)).toContain('salt brine fermentation');
    const trace = (r as any).trace as any[];
    expect(trace.map((x) => x.tool_name)).toEqual(['store_search', 'generation', 'store_search', 'generation']);

    const ev = (await until(`/v1/stores/${store}/events?event_type=agentic_search`, (b) => b.data?.length >= 1))
      .data[0];
    expect(ev).toMatchObject({
      model: 'double-model',
      rounds_executed: 2,
      token_usage: { prompt_tokens: 110, completion_tokens: 11, total_tokens: 121 },
      ranking_strategy: expect.stringContaining('model'),
    });
    expect(ev.tool_calls.filter((x: any) => x.tool_name === 'store_search').map((x: any) => x.arguments.query)).toEqual(
      ['crock cabbage', 'salt brine fermentation'],
    );
    double.handle(() => 'unused');
  });

  it('a client that leaves a streamed answer stops the model request', async () => {
    double.reply({ content: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), tokenDelayMs: 50 });
    const n = double.requests.length;
    const gone = new AbortController();
    const res = await post(
      '/v1/stores/question-answering',
      { query: 'sauerkraut', store_identifiers: [store], stream: true },
      gone.signal,
    );
    for await (const e of readEvents(res.body!)) if (e.event === 'qa.answer.delta') break;
    gone.abort();
    for (const deadline = Date.now() + 10_000; double.requests.length <= n && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 20));
    expect(await double.requests[n].closed).toBe('aborted');
  });

  it('a client that hangs up is recorded and billed for what it got: the retrieval and the model tokens spent so far', async () => {
    const qaEvents = async () =>
      ((await get(`/v1/stores/${store}/events?event_type=qa&limit=100`)).data ?? []) as any[];
    const billedBefore = await get('/v1/billing/summary');

    // hangs up during the answer
    double.reply({ content: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), tokenDelayMs: 50 });
    const gone = new AbortController();
    const res = await post(
      '/v1/stores/question-answering',
      { query: 'left during the answer', store_identifiers: [store], stream: true },
      gone.signal,
    );
    let deltas = 0;
    for await (const e of readEvents(res.body!)) if (e.event === 'qa.answer.delta' && ++deltas === 3) break;
    gone.abort();
    const during = (
      await until(`/v1/stores/${store}/events?event_type=qa&limit=100`, (b) =>
        b.data?.some((x: any) => x.query === 'left during the answer'),
      )
    ).data.find((x: any) => x.query === 'left during the answer');
    expect(during.answer).toMatch(/^word0 word1 word2/);
    expect(during.results.length).toBeGreaterThan(0);
    expect(during.token_usage.prompt_tokens).toBeGreaterThan(0);
    expect(during.token_usage.completion_tokens).toBeGreaterThan(0);

    // hangs up right after the sources, while the model has not answered a byte
    double.reply({ kind: 'hang' });
    const gone2 = new AbortController();
    const res2 = await post(
      '/v1/stores/question-answering',
      { query: 'left after the sources', store_identifiers: [store], stream: true },
      gone2.signal,
    );
    for await (const e of readEvents(res2.body!)) if (e.event === 'qa.sources') break;
    gone2.abort();
    const after = (
      await until(`/v1/stores/${store}/events?event_type=qa&limit=100`, (b) =>
        b.data?.some((x: any) => x.query === 'left after the sources'),
      )
    ).data.find((x: any) => x.query === 'left after the sources');
    expect(after).toMatchObject({ answer: '', token_usage: { completion_tokens: 0 } });
    expect(after.results.length).toBeGreaterThan(0);
    expect(after.token_usage.prompt_tokens).toBeGreaterThan(0);
    const all = await qaEvents();
    expect(
      all.filter((x) => x.query === 'left during the answer' || x.query === 'left after the sources'),
    ).toHaveLength(2);

    // billed: both requests count, with their model tokens
    const qaCount = (b: any) => Number(b.usages?.qa?.current ?? 0);
    const completionTokens = (b: any) => Number(b.usages?.model_completion_tokens?.current ?? 0);
    const billed = await until('/v1/billing/summary', (b) => qaCount(b) >= qaCount(billedBefore) + 2);
    expect(completionTokens(billed)).toBeGreaterThanOrEqual(
      completionTokens(billedBefore) + during.token_usage.completion_tokens,
    );
    double.handle(() => 'unused');
  });
  it('a streamed agentic search whose client hangs up while the model plans is recorded and billed: the searches so far and the tokens spent', async () => {
    const billedBefore = await get('/v1/billing/summary');
    // the model never answers: the client leaves after the first round's search
    double.handle(() => ({ kind: 'hang' }));
    const gone = new AbortController();
    const res = await post(
      '/v1/stores/search',
      {
        query: 'left while planning',
        store_identifiers: [store],
        stream: true,
        search_options: { agentic: { max_rounds: 3 } },
      },
      gone.signal,
    );
    for await (const e of readEvents(res.body!)) if (e.event === 'agentic.round.completed') break;
    await new Promise((r) => setTimeout(r, 200));
    gone.abort();
    const ev = (
      await until(`/v1/stores/${store}/events?event_type=agentic_search&limit=100`, (b) =>
        b.data?.some((x: any) => x.query === 'left while planning'),
      )
    ).data.find((x: any) => x.query === 'left while planning');
    expect(ev.rounds_executed).toBe(1);
    expect(ev.results.length).toBeGreaterThan(0);
    expect(ev.tool_calls.some((x: any) => x.tool_name === 'store_search')).toBe(true);
    expect(ev.token_usage.prompt_tokens).toBeGreaterThan(0);
    const agentic = (b: any) => Number(b.usages?.agentic_searches?.current ?? 0);
    await until('/v1/billing/summary', (b) => agentic(b) >= agentic(billedBefore) + 1);
    double.handle(() => 'unused');
  });
});

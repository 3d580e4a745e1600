/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { allEvents } from './support/sse';

jest.setTimeout(180_000);

const DOCS: Array<{ name: string; text: string }> = [
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage finely and mix it with two percent salt. Press it into a crock under a weight. Lactic fermentation turns the cabbage sour in about three weeks at room temperature. Keep the brine above the cabbage.\n',
  },
  {
    name: 'strawberry-jam.md',
    text: '# Strawberry jam\n\nHull two kilograms of strawberries and add sugar and lemon juice. Boil until the jam sets on a cold plate. Fill sterilised jars while hot and seal them.\n',
  },
  {
    name: 'cellar.txt',
    text: 'The cellar stays at eleven degrees in winter. A humidity sensor watches the shelves. Jars of jam and crocks of pickles are kept on the lower shelf.',
  },
  {
    name: 'bread.md',
    text: '# Sourdough bread\n\nFeed the starter the evening before. Mix flour, water, salt and starter, then let the dough rise overnight. Bake at a high temperature in a covered pot for a crisp crust.\n',
  },
];

describe('Answering without a model: question answering and agentic search through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let other: Mixedbread;
  let key: string;
  let store: string;

  const post = (path: string, body: unknown, k = key) =>
    fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = async (path: string) => {
    const r = await fetch(`${t.baseURL}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: r.status, body: (await r.json()) as any };
  };
  /** Activity and billing are projected asynchronously: wait until `ok` holds (failing with the last answer after 30 s). */
  const until = async (path: string, ok: (body: any) => boolean) => {
    let last: any;
    for (
      const deadline = Date.now() + 30_000;
      Date.now() < deadline;
      await new Promise((res) => setTimeout(res, 100))
    ) {
      last = (await get(path)).body;
      if (ok(last)) return last;
    }
    throw new Error(`${path} never answered as expected; last answer: ${JSON.stringify(last)}`);
  };
  const listed = async (path: string, n: number) => (await until(path, (b) => b.data?.length >= n)).data as any[];

  beforeAll(async () => {
    t = await startTestLarder();
    const org = await t.newOrganization('answering');
    key = org.apiKey;
    c = t.client(key);
    other = t.client((await t.newOrganization('elsewhere')).apiKey);
    store = (await c.stores.create({ name: 'pantry-notes' })).id;
    for (const d of DOCS) {
      await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from(d.text), d.name, {
          type: d.name.endsWith('.md') ? 'text/markdown' : 'text/plain',
        }),
        body: { metadata: { path: `/home/cook/pantry/${d.name}` } },
      });
    }
    for (;;) {
      const st = await c.stores.retrieve(store);
      if (st.file_counts!.completed === DOCS.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => t?.close());

  it('answers a question with the sentence that answers it, cited to its file (extractive, model named)', async () => {
    const r = await c.stores.questionAnswering({
      query: 'How long does sauerkraut take to turn sour?',
      store_identifiers: [store],
      top_k: 4,
    });
    expect((r as any).model).toBe('larder-extractive');
    expect(r.answer).toContain('Lactic fermentation turns the cabbage sour in about three weeks at room temperature.');
    const cites = [...r.answer.matchAll(/<cite i="(\d+)"\/>/g)].map((m) => Number(m[1]));
    expect(cites.length).toBeGreaterThan(0);
    expect(r.sources![cites[0]].filename).toBe('sauerkraut.md');
    expect(r.sources!.length).toBeLessThanOrEqual(4);
    for (const s of r.sources!)
      expect(s).toMatchObject({
        type: 'text',
        file_id: expect.any(String),
        store_id: store,
        score: expect.any(Number),
      });
  });

  it('qa_options.cite false leaves the markers out; a question nothing answers says so', async () => {
    const plain = await c.stores.questionAnswering({
      query: 'How long does sauerkraut take to turn sour?',
      store_identifiers: [store],
      qa_options: { cite: false },
    });
    expect(plain.answer).toContain('three weeks');
    expect(plain.answer).not.toContain('<cite');
    const none = await c.stores.questionAnswering({
      query: 'What is the airspeed velocity of an unladen swallow?',
      store_identifiers: [store],
    });
    expect(none.answer).toBe('None of the retrieved passages answers this question.');
  });

  it('streams question answering: the sources, answer deltas, the whole response, then [DONE]', async () => {
    const res = await post('/v1/stores/question-answering', {
      query: 'At what temperature does the cellar stay in winter?',
      store_identifiers: [store],
      stream: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await allEvents(res);
    const names = events.map((e) => e.event ?? e.data);
    expect(names[0]).toBe('qa.sources');
    expect(names.at(-2)).toBe('qa.completed');
    expect(names.at(-1)).toBe('[DONE]');
    const deltas = events.filter((e) => e.event === 'qa.answer.delta').map((e) => e.data.delta);
    expect(deltas.length).toBeGreaterThan(0);
    const final = events.at(-2)!.data;
    expect(deltas.join('')).toBe(final.answer);
    expect(final.answer).toContain('eleven degrees');
    expect(final.sources).toEqual(events[0].data.sources);
  });

  it('agentic search runs several rounds and returns one deduplicated list; recorded as agentic_search with its tool calls', async () => {
    const r = await c.stores.search({
      query: 'fermenting cabbage in a crock',
      store_identifiers: [store],
      top_k: 3,
      search_options: { agentic: { max_rounds: 3, queries_per_round: 2 } },
    });
    expect(r.data.length).toBeGreaterThan(0);
    expect(r.data.length).toBeLessThanOrEqual(3);
    expect(r.data[0].filename).toBe('sauerkraut.md');
    const keys = r.data.map((d: any) => `${d.file_id}:${d.chunk_index}`);
    expect(new Set(keys).size).toBe(keys.length);
    const [ev] = await listed(`/v1/stores/${store}/events?event_type=agentic_search`, 1);
    expect(ev).toMatchObject({
      type: 'agentic_search',
      store_ids: [store],
      query: 'fermenting cabbage in a crock',
      rounds_executed: expect.any(Number),
      token_usage: { total_tokens: 0 },
    });
    expect(ev.rounds_executed).toBeGreaterThanOrEqual(1);
    expect(ev.tool_calls[0]).toMatchObject({
      tool_name: 'store_search',
      tool_type: 'datastore',
      duration: expect.stringMatching(/^PT/),
      arguments: { query: 'fermenting cabbage in a crock' },
    });
    expect(ev.results.length).toBe(r.data.length);
  });

  it('streams an agentic search: live trace events, then search.completed with the response, then [DONE]', async () => {
    const res = await c.stores
      .search({ query: 'jam jars', store_identifiers: [store], stream: true, search_options: { agentic: true } })
      .asResponse();
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await allEvents(res);
    const names = events.map((e) => e.event ?? e.data);
    expect(names[0]).toBe('agentic.started');
    expect(names).toContain('agentic.round.started');
    expect(names).toContain('agentic.search.completed');
    expect(names.indexOf('agentic.round.started')).toBeLessThan(names.indexOf('agentic.search.completed'));
    expect(names.at(-2)).toBe('search.completed');
    expect(names.at(-1)).toBe('[DONE]');
    const completed = events.at(-2)!.data;
    expect(completed.object).toBe('list');
    expect(completed.data[0].filename).toBe('strawberry-jam.md');
  });

  it('a streamed plain search sends nothing before the result', async () => {
    const res = await post('/v1/stores/search', {
      query: 'sourdough starter',
      store_identifiers: [store],
      stream: true,
    });
    const events = await allEvents(res);
    expect(events.map((e) => e.event ?? e.data)).toEqual(['search.completed', '[DONE]']);
    expect(events[0].data.data[0].filename).toBe('bread.md');
  });

  it('lists one qa event per question (its retrieval is not listed again as a search) and bills it as qa', async () => {
    const count = async (path: string) => (await get(path)).body.data.length as number;
    // the plain search of the test before, once listed (activity is projected asynchronously)
    const searches = (await listed(`/v1/stores/${store}/events?event_type=search`, 1)).length;
    const qas = await count(`/v1/stores/${store}/events?event_type=qa`);
    const bill = (await get('/v1/billing/summary')).body.usages;
    await c.stores.questionAnswering({ query: 'How is sourdough bread baked?', store_identifiers: [store] });
    await c.stores.search({
      query: 'bread crust',
      store_identifiers: [store],
      search_options: { agentic: { max_rounds: 1 } },
    });
    const qa = await listed(`/v1/stores/${store}/events?event_type=qa`, qas + 1);
    expect(qa[0]).toMatchObject({
      type: 'qa',
      store_ids: [store],
      query: 'How is sourdough bread baked?',
      model: 'larder-extractive',
      mode: 'extractive',
      citations: [expect.any(Number)],
    });
    expect(qa[0].results.length).toBeGreaterThan(0);
    const org = await listed('/v1/events?event_type=qa', 1);
    expect(org[0].id).toBe(qa[0].id);
    await listed(`/v1/stores/${store}/events?event_type=agentic_search`, 1);
    expect(await count(`/v1/stores/${store}/events?event_type=search`)).toBe(searches);
    await until(
      '/v1/billing/summary',
      (s) =>
        Number(s.usages.qa.current) === Number(bill.qa.current) + 1 &&
        Number(s.usages.agentic_searches.current) === Number(bill.agentic_searches.current) + 1,
    );
  });

  it('answers mgrep’s requests as mgrep sends them (search -a / --agentic: rerank, agentic, a path filter)', async () => {
    // @mixedbread/mgrep 0.1.13 cannot be installed from this registry (it needs @mixedbread/sdk ^0.43.0, which is not published
    // there), so its calls are made here exactly as its lib/store.js makes them, and its answer is read as its extractSources reads it.
    const filters = { all: [{ key: 'path', operator: 'starts_with' as const, value: '/home/cook/pantry' }] };
    const search = await c.stores.search({
      query: 'cabbage fermentation',
      store_identifiers: [store],
      top_k: 10,
      search_options: { rerank: true, agentic: true },
      filters,
    });
    expect(search.data[0].metadata).toMatchObject({ path: '/home/cook/pantry/sauerkraut.md' });
    const ask = await c.stores.questionAnswering({
      query: 'How long does sauerkraut take to turn sour?',
      store_identifiers: [store],
      top_k: 10,
      search_options: { rerank: true },
      filters,
    });
    const cited = (ask.answer.match(/<cite i="(\d+(?:-\d+)?)"/g) ?? [])
      .map((tag) => Number(/i="(\d+)/.exec(tag)![1]))
      .filter((i) => i < ask.sources!.length);
    expect(cited.length).toBeGreaterThan(0);
    expect((ask.sources![cited[0]].metadata as any).path).toBe('/home/cook/pantry/sauerkraut.md');
    const outside = await c.stores.questionAnswering({
      query: 'sauerkraut',
      store_identifiers: [store],
      filters: { all: [{ key: 'path', operator: 'starts_with', value: '/elsewhere' }] },
    });
    expect(outside).toMatchObject({ answer: 'None of the retrieved passages answers this question.', sources: [] });
  });

  it('another organization gets 404; bad input gets 422 with the field located', async () => {
    await expect(
      other.stores.questionAnswering({ query: 'sauerkraut', store_identifiers: [store] }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      other.stores.search({ query: 'sauerkraut', store_identifiers: [store], search_options: { agentic: true } }),
    ).rejects.toMatchObject({ status: 404 });
    const cases: Array<[string, unknown, (string | number)[]]> = [
      ['/v1/stores/question-answering', { query: '', store_identifiers: [store] }, ['body', 'query']],
      ['/v1/stores/question-answering', { store_identifiers: [store] }, ['body', 'query']],
      ['/v1/stores/question-answering', { query: 'x', store_identifiers: [store], stream: 'yes' }, ['body', 'stream']],
      [
        '/v1/stores/question-answering',
        { query: 'x', store_identifiers: [store], instructions: '' },
        ['body', 'instructions'],
      ],
      [
        '/v1/stores/question-answering',
        { query: 'x', store_identifiers: [store], qa_options: { cite: 'no' } },
        ['body', 'qa_options', 'cite'],
      ],
      [
        '/v1/stores/search',
        { query: 'x', store_identifiers: [store], search_options: { agentic: { max_rounds: 0 } } },
        ['body', 'search_options', 'agentic', 'max_rounds'],
      ],
      [
        '/v1/stores/search',
        { query: 'x', store_identifiers: [store], search_options: { agentic: { max_rounds: 100 } } },
        ['body', 'search_options', 'agentic', 'max_rounds'],
      ],
      [
        '/v1/stores/search',
        { query: 'x', store_identifiers: [store], search_options: { agentic: { queries_per_round: 11 } } },
        ['body', 'search_options', 'agentic', 'queries_per_round'],
      ],
      [
        '/v1/stores/search',
        { query: 'x', store_identifiers: [store], search_options: { agentic: 'always' } },
        ['body', 'search_options', 'agentic'],
      ],
      ['/v1/stores/search', { query: 'x', store_identifiers: [store], stream: 1 }, ['body', 'stream']],
    ];
    for (const [path, body, loc] of cases) {
      const r = await post(path, body);
      expect({ path, body, status: r.status }).toEqual({ path, body, status: 422 });
      const detail = ((await r.json()) as any).detail;
      expect(detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const missing = await post('/v1/stores/question-answering', {
      query: 'x',
      store_identifiers: ['no-such-store'],
      stream: true,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/json/);
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

const paragraphs = (sentences: string[], n: number) =>
  Array.from({ length: n }, (_, i) => `${sentences[i % sentences.length]} (${i + 1})`).join('\n\n');

const BEES = [
  'Honey bees live in a hive ruled by one queen, and the worker bees collect nectar and pollen from flowers.',
  'A beekeeper opens the hive with smoke so the bees stay calm while the honey frames are lifted out.',
  'Bees pollinate orchards: each forager visits hundreds of blossoms and carries pollen from flower to flower.',
  'In winter the colony clusters around the queen and eats the honey it stored during the summer.',
];

/** Three files on unrelated subjects; the bees file is long enough for several chunks. */
const DOCS: Array<{ name: string; text: string; metadata: Record<string, unknown> }> = [
  { name: 'bees.md', text: `# Honey bees\n\n${paragraphs(BEES, 120)}\n`, metadata: { topic: 'insects', year: 2020 } },
  {
    name: 'tides.txt',
    text: 'Ocean tides rise and fall twice a day because the moon pulls the sea. Spring tides follow the full and the new moon; neap tides the quarter moons, when the coastline sees the smallest range.',
    metadata: { topic: 'ocean', year: 2022 },
  },
  {
    name: 'sourdough.md',
    text: '# Sourdough\n\nFeed the starter with rye flour and water, let the dough ferment overnight, shape the loaf and bake the bread in a hot Dutch oven.\n',
    metadata: { topic: 'baking', year: 2024 },
  },
];

describe('POST /v1/stores/files/search through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let other: Mixedbread;
  let key: string;
  let store: string;
  const ids: Record<string, string> = {};

  const search = (body: Record<string, unknown>, client = c): Promise<any> =>
    client.post('/v1/stores/files/search', { body });
  const raw = (path: string, body: unknown, k = key) =>
    fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await startTestLarder();
    key = (await t.newOrganization('files-search')).apiKey;
    c = t.client(key);
    other = t.client((await t.newOrganization('elsewhere')).apiKey);
    store = (await c.stores.create({ name: 'library' })).id;
    for (const d of DOCS) {
      const f = await c.stores.files.uploadAndPoll({
        storeIdentifier: store,
        file: await toFile(Buffer.from(d.text), d.name, {
          type: d.name.endsWith('.md') ? 'text/markdown' : 'text/plain',
        }),
        body: { metadata: d.metadata },
        pollIntervalMs: 100,
      });
      expect(f.status).toBe('completed');
      ids[d.name] = f.id;
    }
  });
  afterAll(async () => t?.close());

  it('ranks the right file first, as a StoreFile with its score and its best chunks', async () => {
    const res = await search({ query: 'worker bees carry pollen between flowers', store_identifiers: ['library'] });
    expect(res.object).toBe('list');
    expect(res.data.map((f: any) => f.filename)).toEqual(expect.arrayContaining(['bees.md']));
    const [top] = res.data;
    expect(top.filename).toBe('bees.md');
    // the file part is the StoreFile the store-file routes answer
    const stored: any = await c.stores.files.retrieve(ids['bees.md'], { store_identifier: store });
    const { chunks, score, content_url, ...file } = top;
    const { content_url: storedUrl, ...storedFile } = stored;
    expect(file).toEqual(storedFile);
    expect(file).toMatchObject({
      id: ids['bees.md'],
      object: 'store.file',
      store_id: store,
      status: 'completed',
      metadata: DOCS[0].metadata,
      config: { parsing_strategy: 'fast' },
    });
    expect(content_url).toEqual(expect.stringContaining(`/v1/stores/${store}/files/${ids['bees.md']}/content`));
    expect(typeof storedUrl).toBe('string');
    expect(await (await fetch(content_url)).text()).toBe(DOCS[0].text);
    // its chunks: scored-chunk shape, its own, best first, the first one carrying the file's score
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThanOrEqual(3);
    for (const ch of chunks)
      expect(ch).toMatchObject({
        type: 'text',
        file_id: ids['bees.md'],
        filename: 'bees.md',
        store_id: store,
        metadata: DOCS[0].metadata,
        text: expect.any(String),
      });
    expect(chunks[0].score).toBe(score);
    expect(chunks.map((ch: any) => ch.score)).toEqual(
      [...chunks.map((ch: any) => ch.score)].sort((a: number, b: number) => b - a),
    );
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThanOrEqual(1);
    // files, not chunks: each file once, best first
    expect(new Set(res.data.map((f: any) => f.id)).size).toBe(res.data.length);
    expect(res.data.map((f: any) => f.score)).toEqual(
      [...res.data.map((f: any) => f.score)].sort((a: number, b: number) => b - a),
    );

    expect(
      (await search({ query: 'why does the sea rise with the moon', store_identifiers: [store] })).data[0].filename,
    ).toBe('tides.txt');
    expect(
      (await search({ query: { type: 'text', text: 'bake a loaf from a rye starter' }, store_identifiers: [store] }))
        .data[0].filename,
    ).toBe('sourdough.md');
  });

  it('top_k limits the files; chunks_per_file and return_chunks shape the chunks; return_metadata: false blanks metadata', async () => {
    const q = { query: 'honey bees in the hive', store_identifiers: [store] };
    expect((await search({ ...q, top_k: 1 })).data.map((f: any) => f.filename)).toEqual(['bees.md']);
    expect((await search({ ...q, top_k: 2 })).data).toHaveLength(2);
    expect((await search({ ...q, top_k: 10 })).data).toHaveLength(3);
    const one = await search({ ...q, search_options: { chunks_per_file: 1 } });
    expect(one.data.every((f: any) => f.chunks.length === 1)).toBe(true);
    const five = await search({ ...q, search_options: { chunks_per_file: 5 } });
    expect(five.data[0].chunks.length).toBeGreaterThan(3);
    const none = await search({ ...q, search_options: { return_chunks: false } });
    expect(none.data.every((f: any) => f.chunks === null)).toBe(true);
    expect(none.data.map((f: any) => [f.id, f.score])).toEqual(one.data.map((f: any) => [f.id, f.score]));
    const bare = await search({ ...q, search_options: { return_metadata: false } });
    expect(bare.data.every((f: any) => f.metadata === null && f.chunks.every((ch: any) => ch.metadata === null))).toBe(
      true,
    );
    expect((await search({ ...q, search_options: { rerank: true } })).data[0].filename).toBe('bees.md');
  });

  it('filters and file_ids restrict the files', async () => {
    const q = { query: 'honey bees in the hive', store_identifiers: [store] };
    expect(
      (await search({ ...q, filters: { key: 'topic', operator: 'eq', value: 'ocean' } })).data.map(
        (f: any) => f.filename,
      ),
    ).toEqual(['tides.txt']);
    expect(
      (await search({ ...q, filters: { key: 'year', operator: 'gte', value: 2022 } })).data
        .map((f: any) => f.filename)
        .sort(),
    ).toEqual(['sourdough.md', 'tides.txt']);
    expect((await search({ ...q, file_ids: [ids['sourdough.md']] })).data.map((f: any) => f.filename)).toEqual([
      'sourdough.md',
    ]);
    const not = await search({ ...q, file_ids: ['not_in', [ids['bees.md']]] });
    expect(not.data.map((f: any) => f.filename).sort()).toEqual(['sourdough.md', 'tides.txt']);
  });

  it('score_threshold drops the files, and the chunks under a file, that score below it', async () => {
    const q = { query: 'honey bees in the hive', store_identifiers: [store], search_options: { chunks_per_file: 10 } };
    const all = await search(q);
    expect(all.data).toHaveLength(3);
    const threshold = (all.data[0].score + all.data[1].score) / 2;
    const high = await search({ ...q, search_options: { ...q.search_options, score_threshold: threshold } });
    expect(high.data.map((f: any) => f.id)).toEqual([all.data[0].id]);
    expect(high.data[0].chunks.length).toBeGreaterThan(0);
    expect(high.data[0].chunks.every((ch: any) => ch.score >= threshold)).toBe(true);
    expect((await search({ ...q, search_options: { score_threshold: 1 } })).data.every((f: any) => f.score >= 1)).toBe(
      true,
    );
  });

  it('answers the request the mxbai CLI sends for `store search --file-search`', async () => {
    const res = await search({
      query: 'bread dough',
      store_identifiers: [store],
      top_k: 10,
      search_options: { return_metadata: true, score_threshold: undefined, rerank: false },
    });
    const [first] = res.data;
    expect(first).toMatchObject({
      filename: 'sourdough.md',
      store_id: store,
      metadata: { topic: 'baking', year: 2024 },
    });
    expect(typeof first.score.toFixed(2)).toBe('string');
  });

  it('search rules: a rewrite changes the query, a file_search_result rule puts its file at result_index', async () => {
    const rule = async (body: unknown) => expect((await raw(`/v1/stores/${store}/rules`, body)).status).toBe(201);
    await rule({
      query: 'weekend project',
      rules: [{ type: 'query_string', substitution: 'rye starter dough bread' }],
    });
    expect((await search({ query: 'Weekend  project', store_identifiers: [store] })).data[0].filename).toBe(
      'sourdough.md',
    );
    await rule({
      query: 'pollen and honey',
      rules: [{ type: 'file_search_result', file_id: ids['tides.txt'], chunk_index: 0, result_index: 0 }],
    });
    const pinned = await search({ query: 'pollen and honey', store_identifiers: [store] });
    expect(pinned.data.map((f: any) => f.filename).slice(0, 2)).toEqual(['tides.txt', 'bees.md']);
    expect(pinned.data[0].score).toBe(pinned.data[1].score);
    expect(pinned.data[0].chunks[0]).toMatchObject({ file_id: ids['tides.txt'], chunk_index: 0 });
    const ignored = await search({
      query: 'pollen and honey',
      store_identifiers: [store],
      search_options: { apply_search_rules: false },
    });
    expect(ignored.data[0].filename).toBe('bees.md');
    // a pinned file still obeys the filters
    const filtered = await search({
      query: 'pollen and honey',
      store_identifiers: [store],
      filters: { key: 'topic', operator: 'eq', value: 'insects' },
    });
    expect(filtered.data.map((f: any) => f.filename)).toEqual(['bees.md']);
  });

  it('content_url only for a key that may read the store; a search-only key gets the files without it', async () => {
    const searchOnly = (
      await c.apiKeys.create({ name: 'search only', scope: [{ method: 'search', resource_type: 'store' }] as never })
    ).value;
    const res = await search({ query: 'moon and tides', store_identifiers: [store] }, t.client(searchOnly));
    expect(res.data[0]).toMatchObject({ filename: 'tides.txt', content_url: null });
    const listOnly = (
      await c.apiKeys.create({ name: 'list only', scope: [{ method: 'list', resource_type: 'store' }] as never })
    ).value;
    await expect(search({ query: 'moon', store_identifiers: [store] }, t.client(listOnly))).rejects.toMatchObject({
      status: 403,
    });
  });

  it('another organization, an unknown store and bad input get 404 and 422', async () => {
    await expect(search({ query: 'bees', store_identifiers: [store] }, other)).rejects.toMatchObject({ status: 404 });
    await expect(search({ query: 'bees', store_identifiers: ['library'] }, other)).rejects.toMatchObject({
      status: 404,
    });
    await expect(search({ query: 'bees', store_identifiers: [store, 'no-such-store'] })).rejects.toMatchObject({
      status: 404,
    });
    const cases: Array<[unknown, (string | number)[]]> = [
      [{ query: '', store_identifiers: [store] }, ['body', 'query']],
      [{ query: 'x', store_identifiers: [store], top_k: 0 }, ['body', 'top_k']],
      [{ query: 'x' }, ['body', 'store_identifiers']],
      [
        { query: 'x', store_identifiers: [store], search_options: { chunks_per_file: -1 } },
        ['body', 'search_options', 'chunks_per_file'],
      ],
      [
        { query: 'x', store_identifiers: [store], filters: { key: 'a', operator: 'approx', value: 1 } },
        ['body', 'filters', 'operator'],
      ],
    ];
    for (const [body, loc] of cases) {
      const r = await raw('/v1/stores/files/search', body);
      expect(r.status).toBe(422);
      const problem: any = await r.json();
      expect(problem.detail[0]).toMatchObject({ loc, msg: expect.any(String), type: expect.any(String) });
    }
  });

  it('is recorded as a search of the store', async () => {
    const deadline = Date.now() + 30_000;
    let events: any[] = [];
    while (Date.now() < deadline) {
      const r = await fetch(`${t.baseURL}/v1/stores/${store}/events?event_type=search&limit=100`, {
        headers: { authorization: `Bearer ${key}` },
      });
      events = ((await r.json()) as any).data;
      if (events.some((e) => e.query === 'bread dough')) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const e = events.find((x) => x.query === 'bread dough');
    expect(e).toMatchObject({ type: 'search', store_ids: [store], rerank: false });
    // the chunks behind the files returned: the best of each file first
    expect(e.results[0]).toMatchObject({
      store_id: store,
      file_id: ids['sourdough.md'],
      chunk_index: 0,
      score: expect.any(Number),
    });
    expect(new Set(e.results.map((r: any) => r.file_id))).toEqual(new Set(Object.values(ids)));
  });

  it('a file removed from the store is no longer found', async () => {
    await c.stores.files.delete(ids['sourdough.md'], { store_identifier: store });
    const res = await search({ query: 'bake a loaf from a rye starter', store_identifiers: [store] });
    expect(res.data.some((f: any) => f.id === ids['sourdough.md'])).toBe(false);
    expect(res.data).toHaveLength(2);
  });
});

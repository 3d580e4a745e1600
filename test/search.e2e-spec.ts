/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { streamName } from '@larder/kernel';
import { eventResults, RecordedResult, RecordedResults } from '@larder/search/events';
import { RerankDouble, startRerankDouble } from '@larder/ai/testing/rerank-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

const DOCS: Array<{ name: string; text: string; metadata: Record<string, unknown> }> = [
  {
    name: 'strawberry-jam.md',
    text: '# Strawberry jam\n\nHull two kilograms of strawberries, add sugar and lemon juice, and boil until the jam sets on a cold plate.\n\n## Jars\n\nFill sterilised jars while hot and seal them.\n',
    metadata: { kind: 'recipe', year: 2021, tags: ['sweet', 'summer'], lang: 'en' },
  },
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage, mix it with two percent salt and press it into a crock. Lactic fermentation turns it sour in three weeks.\n',
    metadata: { kind: 'recipe', year: 2023, tags: ['sour', 'winter'], lang: 'en' },
  },
  {
    name: 'dill-pickles.txt',
    text: 'Dill pickles: pack cucumbers with dill, garlic and mustard seed, then cover them with a five percent brine. Keep the crock cool while they ferment. Error code E42 means the brine is too weak.',
    metadata: { kind: 'recipe', year: 2022, tags: ['sour', 'summer'], lang: 'en' },
  },
  {
    name: 'cellar-log.txt',
    text: 'Cellar temperature log. Monday 11 degrees, Tuesday 12 degrees. The humidity sensor reported error code E17 twice.',
    metadata: { kind: 'log', year: 2024, tags: ['maintenance'], lang: 'en' },
  },
  {
    name: 'quittengelee.md',
    text: '# Quittengelee\n\nQuitten waschen, klein schneiden und mit Wasser kochen. Den Saft mit Zucker zu Gelee einkochen.\n',
    metadata: { kind: 'recipe', year: 2020, tags: ['sweet', 'autumn'], lang: 'de' },
  },
];

describe('Search, rules, grep, list-chunks and facets through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let other: Mixedbread;
  let key: string;
  let orgId: string;
  let store: string;
  let second: string;
  const ids: Record<string, string> = {};

  const raw = (path: string, body: unknown, method = 'POST') =>
    fetch(`${t.baseURL}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await startTestLarder();
    const org = await t.newOrganization('search');
    key = org.apiKey;
    orgId = org.organizationId;
    c = t.client(key);
    other = t.client((await t.newOrganization('elsewhere')).apiKey);
    store = (await c.stores.create({ name: 'preserves' })).id;
    second = (await c.stores.create({ name: 'second-shelf' })).id;
    for (const d of DOCS) {
      const f = await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from(d.text), d.name, {
          type: d.name.endsWith('.md') ? 'text/markdown' : 'text/plain',
        }),
        body: { metadata: d.metadata },
      });
      ids[d.name] = f.id;
    }
    await c.stores.files.upload({
      storeIdentifier: second,
      file: await toFile(
        Buffer.from('Error code E99 on the second shelf. Plum butter needs slow cooking.'),
        'shelf.txt',
        { type: 'text/plain' },
      ),
    });
    for (const s of [store, second]) {
      for (;;) {
        const st = await c.stores.retrieve(s);
        if (st.file_counts!.completed === st.file_counts!.total) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  afterAll(async () => t?.close());

  it('hybrid search finds the relevant chunk first, with every scored-chunk field, scores in [0, 1]', async () => {
    const res = await c.stores.search({
      query: 'how do I make strawberry jam',
      store_identifiers: ['preserves'],
      top_k: 3,
    });
    expect(res.object).toBe('list');
    expect(res.data.length).toBeGreaterThan(0);
    const top = res.data[0] as unknown as Record<string, unknown>;
    expect(top).toMatchObject({
      type: 'text',
      file_id: ids['strawberry-jam.md'],
      filename: 'strawberry-jam.md',
      store_id: store,
      chunk_index: 0,
      metadata: DOCS[0].metadata,
    });
    expect(typeof top.text).toBe('string');
    expect(top.model).toBe('universal-sentence-encoder-lite');
    for (const d of res.data) {
      expect(d.score).toBeGreaterThanOrEqual(0);
      expect(d.score).toBeLessThanOrEqual(1);
    }
    expect(res.data.map((d) => d.score)).toEqual([...res.data.map((d) => d.score)].sort((a, b) => b - a));

    // semantic: no word in common with the German text but the meaning
    const sour = await c.stores.search({ query: 'fermented cabbage', store_identifiers: [store], top_k: 1 });
    expect(sour.data[0].file_id).toBe(ids['sauerkraut.md']);
  });

  it('answers Server-Timing with the steps of a search, a file search and a grep, each request its own', async () => {
    const steps = async (path: string, body: unknown) => {
      const r = await raw(path, body);
      expect(r.status).toBe(200);
      const header = r.headers.get('server-timing') ?? '';
      for (const part of header.split(', ')) expect(part).toMatch(/^[a-z_]+;dur=\d+\.\d\d$/);
      return header.split(', ').map((part) => part.split(';')[0]);
    };
    const [search, again] = await Promise.all([
      steps('/v1/stores/search', { query: 'strawberry jam with lemon', store_identifiers: [store], top_k: 3 }),
      steps('/v1/stores/search', { query: 'sour cabbage in brine', store_identifiers: [store], top_k: 3 }),
    ]);
    for (const s of [search, again]) {
      expect([...s].sort()).toEqual([
        'dense',
        'embed',
        'embed_wait',
        'hydrate',
        'lexical',
        'lexical_wait',
        'search',
        'stores_and_rules',
        'total',
      ]);
    }
    expect(
      [
        ...(await steps('/v1/stores/files/search', { query: 'strawberry jam', store_identifiers: [store], top_k: 2 })),
      ].sort(),
    ).toEqual(['dense', 'embed', 'embed_wait', 'files', 'lexical', 'lexical_wait', 'search', 'stores_and_rules']);
    expect(await steps('/v1/stores/grep', { pattern: 'jam', store_identifiers: [store] })).toEqual(['grep']);
  });

  it('a repeated query is embedded once, and answers the same', async () => {
    const embed = jest.spyOn(t.larder.infra.embedder, 'embed');
    try {
      const q = { query: 'apricot halves in light syrup', store_identifiers: [store], top_k: 3 };
      const [a, b] = await Promise.all([c.stores.search(q), c.stores.search(q)]);
      const again = await c.stores.search(q);
      expect(embed.mock.calls.filter(([texts, kind]) => kind === 'query' && texts[0] === q.query)).toHaveLength(1);
      expect(b.data).toEqual(a.data);
      expect(again.data).toEqual(a.data);
    } finally {
      embed.mockRestore();
    }
  });

  it('filters on file and chunk metadata, file_ids in both forms, threshold, top_k and return_metadata', async () => {
    const q = { query: 'recipe with sugar', store_identifiers: [store], top_k: 10 };
    const de = await c.stores.search({ ...q, filters: { key: 'lang', operator: 'eq', value: 'de' } });
    expect(new Set(de.data.map((d) => d.file_id))).toEqual(new Set([ids['quittengelee.md']]));
    const md = await c.stores.search({
      ...q,
      filters: {
        all: [
          { key: 'generated_metadata.type', operator: 'eq', value: 'markdown' },
          { key: 'year', operator: 'gte', value: 2021 },
        ],
      },
    });
    expect(new Set(md.data.map((d) => d.filename))).toEqual(new Set(['strawberry-jam.md', 'sauerkraut.md']));
    const only = await c.stores.search({ ...q, file_ids: [ids['dill-pickles.txt']] });
    expect(new Set(only.data.map((d) => d.file_id))).toEqual(new Set([ids['dill-pickles.txt']]));
    const not = await c.stores.search({ ...q, file_ids: ['not_in', [ids['dill-pickles.txt'], ids['cellar-log.txt']]] });
    expect(not.data.some((d) => d.file_id === ids['dill-pickles.txt'] || d.file_id === ids['cellar-log.txt'])).toBe(
      false,
    );
    const two = await c.stores.search({ ...q, top_k: 2 });
    expect(two.data).toHaveLength(2);
    const high = await c.stores.search({ ...q, search_options: { score_threshold: 0.9 } });
    expect(high.data.every((d) => d.score >= 0.9)).toBe(true);
    const bare = await c.stores.search({ ...q, search_options: { return_metadata: false } });
    expect(bare.data.every((d) => d.metadata === null)).toBe(true);
  });

  it('an embedding query is searched densely only, checked against the embedder’s dimensions and recorded without its vector', async () => {
    const [v] = await t.larder.infra.embedder.embed(['boiling strawberries with sugar into jam'], 'query');
    const lexical = jest.spyOn(t.larder.infra.chunkIndex, 'searchLexical');
    try {
      const res = await c.stores.search({ query: Array.from(v) as any, store_identifiers: [store], top_k: 3 });
      expect(res.data[0]).toMatchObject({ file_id: ids['strawberry-jam.md'], chunk_index: 0 });
      expect(lexical).not.toHaveBeenCalled();
    } finally {
      lexical.mockRestore();
    }
    const wrong = await raw('/v1/stores/search', { query: [0.1, 0.2, 0.3], store_identifiers: [store] });
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as any).detail[0]).toMatchObject({
      loc: ['body', 'query'],
      type: 'value_error',
      msg: expect.stringContaining(`has ${v.length}`),
    });
    await expect(c.stores.search({ query: [0.1] as any, store_identifiers: [store] })).rejects.toMatchObject({
      status: 422,
    });
    for (;;) {
      const events = await t.larder.infra.eventStore.readStream(streamName('search_activity', orgId));
      const found = events.find(
        (e) => e.type === 'StoreSearchPerformed' && (e.data as any).queryDimensions === v.length,
      );
      if (found) {
        expect(found.data).toMatchObject({ query: null, queryDimensions: v.length });
        const d = found.data as { results: RecordedResults; storeIds: string[] };
        expect(eventResults(d.results, d.storeIds)).toEqual([
          expect.objectContaining({ file_id: ids['strawberry-jam.md'] }),
          expect.anything(),
          expect.anything(),
        ]);
        expect(JSON.stringify(found.data)).not.toContain(String(v[0]));
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('offset pages the ranking with a pagination total; sort_by orders by score, a metadata field or created_at, both ways', async () => {
    const q = { query: 'recipe with salt or sugar', store_identifiers: [store] };
    const plain = await c.stores.search({ ...q, top_k: 2 });
    expect(plain).not.toHaveProperty('pagination');
    const first = (await c.stores.search({ ...q, top_k: 2, offset: 0 } as any)) as any;
    expect(first.data.map((d: any) => [d.file_id, d.chunk_index])).toEqual(
      plain.data.map((d) => [d.file_id, d.chunk_index]),
    );
    const total = first.pagination.total;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(first.pagination).toEqual({ total, offset: 0, limit: 2, has_more: true });
    const paged: any[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = (await c.stores.search({ ...q, top_k: 2, offset } as any)) as any;
      expect(page.pagination).toEqual({ total, offset, limit: 2, has_more: offset + page.data.length < total });
      paged.push(...page.data);
      if (!page.pagination.has_more) break;
    }
    const whole = (await c.stores.search({ ...q, top_k: total, offset: 0 } as any)) as any;
    const key = (d: any) => `${d.file_id}/${d.chunk_index}`;
    expect(paged.map(key)).toEqual(whole.data.map(key));
    expect(new Set(paged.map(key)).size).toBe(total);

    const sorted = async (sort_by: unknown) =>
      ((await c.stores.search({ ...q, top_k: total, sort_by } as any)) as any).data as any[];
    const scores = (await sorted(['score', true])).map((d) => d.score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect((await sorted('score')).map(key)).toEqual(whole.data.map(key));
    const years = async (sort_by: unknown) => (await sorted(sort_by)).map((d) => d.metadata.year);
    const asc = await years('year');
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    const desc = await years(['metadata.year', false]);
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    expect(desc[0]).toBeGreaterThan(desc[desc.length - 1]);
    const uploaded = (sort_by: unknown) =>
      sorted(sort_by).then((xs) => xs.map((d) => DOCS.findIndex((x) => ids[x.name] === d.file_id)));
    const oldest = await uploaded('created_at');
    expect(oldest).toEqual([...oldest].sort((a, b) => a - b));
    const newest = await uploaded(['created_at', false]);
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
    expect(newest[0]).toBeGreaterThan(newest[newest.length - 1]);
    // a sorted page is a slice of the sorted window
    const sortedPage = (await c.stores.search({ ...q, top_k: 2, offset: 2, sort_by: 'created_at' } as any)) as any;
    expect(sortedPage.data.map(key)).toEqual((await sorted('created_at')).slice(2, 4).map(key));
    expect(sortedPage.pagination).toMatchObject({ total, offset: 2, limit: 2 });
  });

  it('search rules rewrite the query and pin results; apply_search_rules=false ignores them', async () => {
    const base = { store_identifiers: [store], top_k: 3 };
    const plain = await c.stores.search({ ...base, query: 'winter project' });
    const created: any = await (
      await raw(`/v1/stores/preserves/rules`, {
        query: 'Winter project',
        rules: [{ type: 'query_string', substitution: 'shredded cabbage fermentation' }],
      })
    ).json();
    expect(created).toMatchObject({
      id: expect.any(String),
      object: 'search_rule',
      query: 'Winter project',
      store_id: store,
      rules: [
        {
          type: 'query_string',
          substitution: 'shredded cabbage fermentation',
          query: 'Winter project',
          store_id: store,
        },
      ],
    });
    const ruled = await c.stores.search({ ...base, query: 'winter  PROJECT' });
    expect(ruled.data[0].file_id).toBe(ids['sauerkraut.md']);
    const ignored = await c.stores.search({
      ...base,
      query: 'winter project',
      search_options: { apply_search_rules: false },
    });
    expect(ignored.data.map((d) => [d.file_id, d.chunk_index])).toEqual(
      plain.data.map((d) => [d.file_id, d.chunk_index]),
    );

    // regex rewrite with a group, and a pinned chunk at position 0
    const rx: any = await (
      await raw(`/v1/stores/${store}/rules`, {
        query: 'brine for cucumbers',
        rules: [
          { type: 'query_regex', pattern: '^brine for (\\w+)$', replacement: 'dill \\1 garlic', flags: ['IGNORECASE'] },
          { type: 'chunk_search_result', file_id: ids['cellar-log.txt'], chunk_index: 0, result_index: 0 },
        ],
      })
    ).json();
    expect(rx.rules).toHaveLength(2);
    const pinned = await c.stores.search({ ...base, query: 'brine for cucumbers' });
    expect(pinned.data[0].file_id).toBe(ids['cellar-log.txt']);
    expect(pinned.data[1].file_id).toBe(ids['dill-pickles.txt']);

    const got: any = await (
      await fetch(`${t.baseURL}/v1/stores/${store}/rules/${rx.id}`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    expect(got).toEqual(rx);
    const specific: any = await (
      await raw(
        `/v1/stores/${store}/rules/${rx.id}/specific`,
        { rule: { type: 'chunk_search_result', file_id: ids['cellar-log.txt'], chunk_index: 0, result_index: 0 } },
        'DELETE',
      )
    ).json();
    expect(specific).toMatchObject({
      id: rx.id,
      object: 'search_rule',
      deleted_rule: { type: 'chunk_search_result' },
      remaining_rules: 1,
    });
    const unpinned = await c.stores.search({ ...base, query: 'brine for cucumbers' });
    expect(unpinned.data[0].file_id).toBe(ids['dill-pickles.txt']);

    const updated: any = await (
      await raw(`/v1/stores/${store}/rules/${created.id}`, { query: 'cold season' }, 'PUT')
    ).json();
    expect(updated).toMatchObject({ id: created.id, query: 'cold season' });
    expect(await (await raw(`/v1/stores/${store}/rules/${created.id}`, undefined, 'DELETE')).json()).toEqual({
      deleted: true,
      object: 'search_rule.deleted',
    });
    expect(
      (
        await fetch(`${t.baseURL}/v1/stores/${store}/rules/${created.id}`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).status,
    ).toBe(404);
    const bad = await raw(`/v1/stores/${store}/rules`, {
      query: 'x',
      rules: [{ type: 'query_regex', pattern: '(?<=a)b', replacement: '' }],
    });
    expect(bad.status).toBe(422);
  });

  it('grep matches RE2 patterns, case-insensitively by default, interleaved across stores in request order', async () => {
    const res = await c.stores.grep({ pattern: 'error code E\\d+', store_identifiers: [store, second], top_k: 10 });
    expect(res.data.map((d) => d.filename).sort()).toEqual(['cellar-log.txt', 'dill-pickles.txt', 'shelf.txt']);
    expect(res.data[1].store_id).toBe(second); // store 1, store 2, store 1
    const sensitive = await c.stores.grep({ pattern: 'error code', store_identifiers: [store], case_sensitive: true });
    expect(sensitive.data.map((d) => d.filename)).toEqual(['cellar-log.txt']);
    const one = await c.stores.grep({ pattern: 'E\\d\\d', store_identifiers: [store, second], top_k: 1 });
    expect(one.data).toHaveLength(1);
    const filtered = await c.stores.grep({
      pattern: 'brine|sugar',
      store_identifiers: [store],
      filters: { key: 'tags', operator: 'contains', value: 'sweet' },
    });
    expect(filtered.data.map((d) => d.filename)).toEqual(['strawberry-jam.md']);
    const t0 = Date.now();
    const evil = await c.stores.grep({ pattern: '(e+)+s', store_identifiers: [store] });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(evil.data.length).toBeGreaterThan(0);
    for (const pattern of ['(\\w+) \\1', '(?=jam)', '(']) {
      const r = await raw('/v1/stores/grep', { pattern, store_identifiers: [store] });
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error.message).toMatch(/Invalid pattern/);
    }
  });

  it('list-chunks lists in order or sorted numerically by a metadata path; facets count values per field', async () => {
    const listed = await c.stores.listChunks({ store_identifiers: [store], top_k: 100 });
    expect(listed.data.length).toBeGreaterThanOrEqual(DOCS.length);
    const newest = await c.stores.listChunks({ store_identifiers: [store], sort_by: ['year', false], top_k: 2 });
    expect(newest.data.map((d) => d.filename)).toEqual(['cellar-log.txt', 'sauerkraut.md']);
    const oldest = await c.stores.listChunks({
      store_identifiers: [store],
      sort_by: 'year',
      top_k: 1,
      filters: { key: 'kind', operator: 'eq', value: 'recipe' },
    });
    expect(oldest.data.map((d) => d.filename)).toEqual(['quittengelee.md']);

    const facets = await c.stores.metadataFacets({ store_identifiers: [store] });
    expect(facets.facets.kind).toEqual({ recipe: 4, log: 1 });
    expect(facets.facets.tags).toMatchObject({ sweet: 2, sour: 2, summer: 2 });
    expect(facets.facets.lang).toEqual({ en: 4, de: 1 });
    const few = await c.stores.metadataFacets({
      store_identifiers: [store],
      facets: ['tags', 'lang'],
      max_values_per_field: 1,
    });
    expect(Object.keys(few.facets).sort()).toEqual(['lang', 'tags']);
    expect(Object.keys(few.facets.lang)).toEqual(['en']);
    const scoped = await c.stores.metadataFacets({
      store_identifiers: [store],
      query: 'jam',
      filters: { key: 'lang', operator: 'eq', value: 'de' },
    });
    expect(scoped.facets.lang).toEqual({ de: 1 });
  });

  it('bad input is a clear 4xx; another organization’s store is 404', async () => {
    const cases: Array<[unknown, number, (string | number)[]]> = [
      [{ query: '', store_identifiers: [store] }, 422, ['body', 'query']],
      [
        { query: 'x', store_identifiers: Array.from({ length: 17 }, (_, i) => `s${i}`) },
        422,
        ['body', 'store_identifiers'],
      ],
      [{ query: 'x', store_identifiers: [store], top_k: 0 }, 422, ['body', 'top_k']],
      [
        { query: 'x', store_identifiers: [store], filters: { key: 'a', operator: 'approx', value: 1 } },
        422,
        ['body', 'filters', 'operator'],
      ],
      [{ query: 'x', store_identifiers: [store], file_ids: ['in'] }, 422, ['body', 'file_ids']],
      [{ query: 'x', store_identifiers: [store], file_ids: ['between', ['a']] }, 422, ['body', 'file_ids', 0]],
      [{ query: 'x', store_identifiers: [] }, 422, ['body', 'store_identifiers']],
    ];
    for (const [body, status, loc] of cases) {
      const r = await raw('/v1/stores/search', body);
      expect(r.status).toBe(status);
      expect(((await r.json()) as any).detail[0].loc).toEqual(loc);
    }
    await expect(other.stores.search({ query: 'jam', store_identifiers: [store] })).rejects.toMatchObject({
      status: 404,
    });
    await expect(other.stores.search({ query: 'jam', store_identifiers: ['preserves'] })).rejects.toMatchObject({
      status: 404,
    });
    await expect(other.stores.grep({ pattern: 'jam', store_identifiers: [store] })).rejects.toMatchObject({
      status: 404,
    });
    await expect(other.stores.listChunks({ store_identifiers: [store] })).rejects.toMatchObject({ status: 404 });
    await expect(other.stores.metadataFacets({ store_identifiers: [store] })).rejects.toMatchObject({ status: 404 });
    await expect(c.stores.search({ query: 'jam', store_identifiers: [store, 'no-such-store'] })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('a deleted file never appears once its delete has returned', async () => {
    await c.stores.files.delete(ids['quittengelee.md'], { store_identifier: store });
    const s = await c.stores.search({ query: 'Quitten Gelee Zucker', store_identifiers: [store], top_k: 50 });
    expect(s.data.some((d) => d.file_id === ids['quittengelee.md'])).toBe(false);
    const g = await c.stores.grep({ pattern: 'Quitten', store_identifiers: [store] });
    expect(g.data).toEqual([]);
    const l = await c.stores.listChunks({ store_identifiers: [store], top_k: 100 });
    expect(l.data.some((d) => d.file_id === ids['quittengelee.md'])).toBe(false);
  });

  it('records search and grep activity off the request path', async () => {
    await new Promise((r) => setTimeout(r, 300));
    const events = await t.larder.infra.eventStore.readStream(streamName('search_activity', orgId));
    const searches = events.filter((e) => e.type === 'StoreSearchPerformed');
    const greps = events.filter((e) => e.type === 'StoreGrepPerformed');
    expect(searches.length).toBeGreaterThan(10);
    expect(greps.length).toBeGreaterThan(3);
    expect(searches[0].data).toMatchObject({
      storeIds: [store],
      query: 'how do I make strawberry jam',
      topK: 3,
      results: expect.any(Array),
      searchTimeMs: expect.any(Number),
    });
    const recorded = searches[0].data as { results: RecordedResults; storeIds: string[] };
    // recorded as tuples (the store an index into storeIds), listed as the activity API's objects
    const [first] = recorded.results as RecordedResult[];
    expect(first).toHaveLength(7);
    expect(first.slice(0, 2)).toEqual([0, ids['strawberry-jam.md']]);
    expect(eventResults(recorded.results, recorded.storeIds)[0]).toMatchObject({
      store_id: store,
      file_id: ids['strawberry-jam.md'],
      chunk_index: 0,
      score: expect.any(Number),
      first_stage_source: expect.stringMatching(/dense|sparse|both/),
    });
  });

  it('without a reranker configured, rerank changes no order (its top_k still keeps that many) and the search event says rerank: false', async () => {
    const q = { query: 'sterilised jars sealed while hot', store_identifiers: [store], top_k: 5 };
    const plain = await c.stores.search(q);
    const reranked = await c.stores.search({ ...q, search_options: { rerank: true } });
    const configured = await c.stores.search({
      ...q,
      search_options: { rerank: { model: 'mixedbread-ai/mxbai-rerank-large-v2', top_k: 2 } },
    });
    const rows = (r: typeof plain) => r.data.map((d) => [d.file_id, d.chunk_index, d.score]);
    expect(reranked.data.length).toBeGreaterThan(0);
    expect(rows(reranked)).toEqual(rows(plain));
    expect(rows(configured)).toEqual(rows(plain).slice(0, 2));
    const searched = await searchEvents(t, orgId, q.query, 3);
    expect(searched.map((e) => e.rerank)).toEqual([false, false, false]);
  });
});

/** The StoreSearchPerformed events of a query (appended off the request path: waits until `count` are there). */
async function searchEvents(
  t: TestLarder,
  orgId: string,
  query: string,
  count: number,
): Promise<Array<{ rerank: boolean; results: Array<{ file_id: string }> }>> {
  for (;;) {
    const events = await t.larder.infra.eventStore.readStream(streamName('search_activity', orgId));
    const found = events
      .filter((e) => e.type === 'StoreSearchPerformed' && (e.data as { query: string }).query === query)
      .map((e) => e.data as any)
      .map((d) => ({ ...d, results: eventResults(d.results, d.storeIds) }));
    if (found.length >= count) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Search with LARDER_RERANKER=http: a rerank endpoint (a local double of the Mixedbread wire format) reorders the results', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let orgId: string;
  let store: string;
  let double: RerankDouble;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    // the double scores a chunk by the share of the query's words in it, and the cellar log (word "humidity") highest of all
    double = await startRerankDouble({ format: 'mixedbread', apiKey: 'sk-rerank-e2e', favour: 'humidity' });
    t = await startTestLarder({
      env: {
        LARDER_RERANKER: 'http',
        LARDER_RERANKER_URL: double.baseUrl,
        LARDER_RERANKER_API_KEY: 'sk-rerank-e2e',
        LARDER_RERANKER_MODEL: 'mixedbread-ai/mxbai-rerank-large-v2',
        LARDER_RERANKER_FORMAT: 'mixedbread',
        LARDER_RERANKER_MAX_RETRIES: '0',
      },
    });
    const org = await t.newOrganization('rerank');
    orgId = org.organizationId;
    c = t.client(org.apiKey);
    store = (await c.stores.create({ name: 'reranked-preserves' })).id;
    for (const d of DOCS) {
      const f = await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from(d.text), d.name, { type: 'text/plain' }),
        body: { metadata: d.metadata },
      });
      files[d.name] = f.id;
    }
    for (;;) {
      const st = await c.stores.retrieve(store);
      if (st.file_counts!.completed === st.file_counts!.total) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('rerank: true re-scores the fused head with the endpoint and orders by its scores; the event says rerank: true', async () => {
    const q = { query: 'strawberry jam with sugar', store_identifiers: [store], top_k: 5 };
    const before = double.requests.length;
    const plain = await c.stores.search(q);
    expect(plain.data[0].file_id).toBe(files['strawberry-jam.md']);
    expect(double.requests.length).toBe(before); // no rerank asked: the endpoint is not called

    const reranked = await c.stores.search({ ...q, search_options: { rerank: true } });
    const sent = double.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      path: '/v1/reranking',
      authorization: 'Bearer sk-rerank-e2e',
      body: { model: 'mixedbread-ai/mxbai-rerank-large-v2', query: q.query, return_input: false },
    });
    // the cellar log, which the endpoint favours, comes first; every score is the endpoint's, best first
    expect(reranked.data[0].file_id).toBe(files['cellar-log.txt']);
    expect(reranked.data[0].score).toBe(1);
    const expected = reranked.data.map((d: any) => double.relevance(q.query, d.text as string));
    expect(reranked.data.map((d) => d.score)).toEqual(expected);
    expect([...expected].sort((a, b) => b - a)).toEqual(expected);

    const [first, second] = await searchEvents(t, orgId, q.query, 2);
    expect(first.rerank).toBe(false);
    expect(second.rerank).toBe(true);
    expect(second.results[0].file_id).toBe(files['cellar-log.txt']);
  });

  it('rerank.top_k cuts the reranked list; search-files reranks too', async () => {
    const r = await c.stores.search({
      query: 'brine for pickles',
      store_identifiers: [store],
      top_k: 10,
      search_options: { rerank: { top_k: 2 } },
    });
    expect(r.data).toHaveLength(2);
    expect(r.data[0].file_id).toBe(files['cellar-log.txt']);
    const f: any = await c.post('/v1/stores/files/search', {
      body: { query: 'brine for pickles', store_identifiers: [store], top_k: 3, search_options: { rerank: true } },
    });
    expect(f.data[0].filename).toBe('cellar-log.txt');
  });

  it('an endpoint that fails does not fail the search: the fused ranking stands and the event says rerank: false', async () => {
    const q = { query: 'sauerkraut cabbage fermentation', store_identifiers: [store], top_k: 3 };
    const plain = await c.stores.search(q);
    double.failNext(503);
    const r = await c.stores.search({ ...q, search_options: { rerank: true } });
    expect(r.data.map((d) => [d.file_id, d.score])).toEqual(plain.data.map((d) => [d.file_id, d.score]));
    const [, failed] = await searchEvents(t, orgId, q.query, 2);
    expect(failed.rerank).toBe(false);
  });
});

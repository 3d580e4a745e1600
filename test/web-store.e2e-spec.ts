/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import {
  startBraveDouble,
  startSearxngDouble,
  WebPage,
  WebSearchDouble,
} from '@larder/search/web/testing/web-search-doubles';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(240_000);

const WEB = 'mixedbread/web';
const BRAVE_KEY = 'BSA-e2e-subscription-token-5d2a';

const DOCS = [
  {
    name: 'sauerkraut.md',
    text: '# Sauerkraut\n\nShred white cabbage and mix it with two percent salt. Lactic fermentation turns the cabbage sour in about three weeks.\n',
  },
  {
    name: 'jam.md',
    text: '# Strawberry jam\n\nBoil strawberries with sugar and lemon juice until the jam sets on a cold plate.\n',
  },
];

const SEARXNG_PAGES: WebPage[] = [
  {
    url: 'https://en.wikipedia.org/wiki/Sauerkraut',
    title: 'Sauerkraut - Wikipedia',
    snippet: 'Sauerkraut is finely cut raw cabbage that has been fermented by lactic acid bacteria.',
  },
  {
    url: 'https://example.org/kimchi',
    title: 'Kimchi',
    snippet: 'Kimchi is a fermented cabbage side dish with chili and garlic.',
  },
  {
    url: 'https://example.org/bicycles',
    title: 'Bicycle repair',
    snippet: 'How to true a wheel and replace a cabbage-shaped bell.',
  },
];
const BRAVE_PAGES: WebPage[] = [
  {
    url: 'https://www.en.wikipedia.org/wiki/Sauerkraut/',
    title: 'Sauerkraut',
    snippet: 'Sauerkraut: <strong>fermented cabbage</strong>, made with salt over several weeks.',
    published: '2024-01-02T00:00:00',
  },
  {
    url: 'https://brave.example/fermentation-guide',
    title: 'A fermentation guide',
    snippet: 'Salt, cabbage and time: lactic fermentation at home.',
    extraSnippets: ['Keep the crock cool.'],
  },
];

const isWeb = (c: { store_id: string; filename: string }) => c.store_id === WEB && c.filename.startsWith('http');

describe('The web store (mixedbread/web) through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  let store: string;

  async function ingest(client: Mixedbread, name: string) {
    const id = (await client.stores.create({ name })).id;
    for (const d of DOCS) {
      await client.stores.files.upload({
        storeIdentifier: id,
        file: await toFile(Buffer.from(d.text), d.name, { type: 'text/markdown' }),
        body: { metadata: { path: `/home/cook/pantry/${d.name}` } },
      });
    }
    for (;;) {
      const st = await client.stores.retrieve(id);
      if (st.file_counts!.completed === DOCS.length) return id;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  describe('with SearXNG and Brave configured (local doubles of their JSON APIs)', () => {
    let searxng: WebSearchDouble;
    let brave: WebSearchDouble;

    beforeAll(async () => {
      searxng = await startSearxngDouble(SEARXNG_PAGES);
      brave = await startBraveDouble(BRAVE_PAGES, { apiKey: BRAVE_KEY });
      t = await startTestLarder({
        env: {
          LARDER_WEB_SEARCH_PROVIDERS: 'searxng,brave',
          LARDER_SEARXNG_URL: searxng.url,
          LARDER_BRAVE_API_KEY: BRAVE_KEY,
          LARDER_BRAVE_URL: brave.url,
          LARDER_WEB_SEARCH_TIMEOUT_MS: '1500',
        },
      });
      key = (await t.newOrganization('web')).apiKey;
      c = t.client(key);
      store = await ingest(c, 'web-pantry');
    });
    afterAll(async () => {
      await t?.close();
      await searxng?.close();
      await brave?.close();
    });

    it('searches the web alone: both providers asked, results merged (one page found by both is kept once), scored chunks with URLs as filenames', async () => {
      const { data: r, response } = await c.stores
        .search({ query: 'fermented cabbage', store_identifiers: [WEB], top_k: 10 })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('ok; answered=searxng,brave');
      expect(r.data.length).toBeGreaterThanOrEqual(3);
      for (const chunk of r.data as any[]) {
        expect(isWeb(chunk)).toBe(true);
        expect(chunk.type).toBe('text');
        expect(chunk.score).toBeGreaterThanOrEqual(0);
        expect(chunk.score).toBeLessThanOrEqual(1);
        expect(chunk.file_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(chunk.text).toContain(chunk.metadata.title);
      }
      const wiki = (r.data as any[]).filter((x) => x.filename.includes('wikipedia.org/wiki/Sauerkraut'));
      expect(wiki).toHaveLength(1);
      expect(wiki[0].metadata).toMatchObject({ providers: expect.arrayContaining(['searxng', 'brave']) });
      const scores = r.data.map((x) => x.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      // the unrelated page ranks below the pages about fermented cabbage
      const bikes = (r.data as any[]).findIndex((x) => x.filename.includes('bicycles'));
      expect(bikes === -1 || bikes > (r.data as any[]).findIndex((x) => x.filename.includes('kimchi'))).toBe(true);
      expect(brave.requests.at(-1)!.headers['x-subscription-token']).toBe(BRAVE_KEY);
      expect(searxng.requests.at(-1)!.query.get('q')).toBe('fermented cabbage');
      // the same page gets the same file_id in every search
      const again = await c.stores.search({ query: 'sauerkraut', store_identifiers: [WEB] });
      expect(again.data.find((x) => x.filename.includes('wikipedia.org/wiki/Sauerkraut'))!.file_id).toBe(
        wiki[0].file_id,
      );
    });

    it('mixes the web with a store in one ranking (top_k over both, scores in [0, 1])', async () => {
      const { data: r, response } = await c.stores
        .search({ query: 'cabbage fermentation with salt', store_identifiers: [store, WEB], top_k: 6 })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('ok; answered=searxng,brave');
      expect(r.data).toHaveLength(6);
      expect(r.data.some((x) => isWeb(x))).toBe(true);
      expect(r.data.some((x) => x.store_id === store && x.filename === 'sauerkraut.md')).toBe(true);
      for (const x of r.data) {
        expect(x.score).toBeGreaterThanOrEqual(0);
        expect(x.score).toBeLessThanOrEqual(1);
      }
      const scores = r.data.map((x) => x.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      // the store's sauerkraut chunk outranks its jam chunk, as in a store search
      const kraut = r.data.findIndex((x) => x.filename === 'sauerkraut.md');
      const jam = r.data.findIndex((x) => x.filename === 'jam.md');
      expect(jam === -1 || kraut < jam).toBe(true);
    });

    it('answers mgrep’s --web request as mgrep sends it: [store, "mixedbread/web"], rerank, a path filter (which applies to store files, not web pages)', async () => {
      const filters = { all: [{ key: 'path', operator: 'starts_with' as const, value: '/home/cook/pantry' }] };
      const r = await c.stores.search({
        query: 'how long does sauerkraut ferment',
        store_identifiers: [store, WEB],
        top_k: 10,
        search_options: { rerank: true },
        filters,
      });
      expect(r.data.some((x) => isWeb(x))).toBe(true);
      const local = r.data.filter((x) => !isWeb(x));
      expect(local.length).toBeGreaterThan(0);
      for (const x of local) expect((x.metadata as any).path).toMatch(/^\/home\/cook\/pantry\//);
      // a filter no store file passes leaves the web results
      const elsewhere = await c.stores.search({
        query: 'sauerkraut',
        store_identifiers: [store, WEB],
        filters: { all: [{ key: 'path', operator: 'starts_with', value: '/elsewhere' }] },
      });
      expect(elsewhere.data.length).toBeGreaterThan(0);
      expect(elsewhere.data.every((x) => isWeb(x))).toBe(true);
    });

    it('a provider that hangs past the timeout is left out: the other provider and the store still answer, and the header says which failed', async () => {
      brave.reply({ kind: 'hang' });
      const { data: r, response } = await c.stores
        .search({ query: 'cabbage', store_identifiers: [store, WEB] })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('partial; answered=searxng; failed=brave (timeout)');
      expect(r.data.some((x) => x.filename.includes('example.org/kimchi'))).toBe(true);
      expect(r.data.some((x) => x.filename.includes('brave.example'))).toBe(false);
      expect(r.data.some((x) => x.store_id === store)).toBe(true);
    });

    it('every provider down: the store part answers with the web part skipped; the web alone is a 502 in the contract’s shape', async () => {
      searxng.reply({ kind: 'hang' });
      brave.reply({ kind: 'error', status: 503 }, { kind: 'error', status: 503 });
      const { data: r, response } = await c.stores
        .search({ query: 'cabbage', store_identifiers: [store, WEB] })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('skipped; failed=searxng (timeout), brave (unavailable)');
      expect(r.data.length).toBeGreaterThan(0);
      expect(r.data.every((x) => x.store_id === store)).toBe(true);

      searxng.reply({ kind: 'raw', body: '{"results": [' });
      brave.reply({ kind: 'error', status: 401 });
      const res = await fetch(`${t.baseURL}/v1/stores/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'cabbage', store_identifiers: [WEB] }),
      });
      expect(res.status).toBe(502);
      expect(res.headers.get('larder-web-search')).toBe('skipped; failed=searxng (bad_response), brave (refused)');
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ error: { code: 502, type: 'web_search_unavailable' } });
      expect(body.message).toContain('brave');
      expect(JSON.stringify(body)).not.toContain(BRAVE_KEY);
    });

    it('question answering takes web results as sources beside the store’s', async () => {
      const { data: r, response } = await c.stores
        .questionAnswering({ query: 'What is sauerkraut fermented by?', store_identifiers: [store, WEB], top_k: 6 })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('ok; answered=searxng,brave');
      expect(r.sources!.some((x) => isWeb(x))).toBe(true);
      expect(r.answer).toMatch(/<cite i="\d+"\/>/);
    });

    it('a search over the web is one search event, with the web results among its results; grep refuses the web store', async () => {
      await c.stores.search({ query: 'kimchi chili garlic', store_identifiers: [store, WEB] });
      let events: any;
      for (
        const deadline = Date.now() + 30_000;
        Date.now() < deadline;
        await new Promise((res) => setTimeout(res, 100))
      ) {
        events = await (
          await fetch(`${t.baseURL}/v1/stores/${store}/events?event_type=search`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json();
        if (events.data?.some((e: any) => e.query === 'kimchi chili garlic')) break;
      }
      const hits = events.data.filter((e: any) => e.query === 'kimchi chili garlic');
      expect(hits).toHaveLength(1);
      expect(hits[0].store_ids).toEqual([store]);
      expect(hits[0].results.some((x: any) => x.store_id === WEB && x.filename.startsWith('https://'))).toBe(true);
      expect(JSON.stringify(events)).not.toContain(BRAVE_KEY);
      await expect(c.stores.grep({ pattern: 'cabbage', store_identifiers: [WEB] } as any)).rejects.toMatchObject({
        status: 400,
      });
    });
  });

  describe('agentic search and the organization’s event listing', () => {
    let searxng: WebSearchDouble;
    beforeAll(async () => {
      searxng = await startSearxngDouble(SEARXNG_PAGES);
      t = await startTestLarder({ env: { LARDER_SEARXNG_URL: searxng.url } });
      key = (await t.newOrganization('web-agentic')).apiKey;
      c = t.client(key);
      store = await ingest(c, 'agentic-pantry');
    });
    afterAll(async () => {
      await t?.close();
      await searxng?.close();
    });

    it('an agentic search (mgrep --web --agentic) adds the web results to the question’s own search', async () => {
      const { data: r, response } = await c.stores
        .search({
          query: 'fermented cabbage',
          store_identifiers: [store, WEB],
          top_k: 10,
          search_options: { rerank: true, agentic: true },
        })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('ok; answered=searxng');
      expect(r.data.some((x) => isWeb(x))).toBe(true);
      expect(r.data.some((x) => x.store_id === store)).toBe(true);
    });

    it('a search of the web alone is listed by GET /v1/events with no store', async () => {
      await c.stores.search({ query: 'kimchi garlic', store_identifiers: [WEB] });
      let events: any;
      for (
        const deadline = Date.now() + 30_000;
        Date.now() < deadline;
        await new Promise((res) => setTimeout(res, 100))
      ) {
        events = await (
          await fetch(`${t.baseURL}/v1/events?event_type=search`, { headers: { authorization: `Bearer ${key}` } })
        ).json();
        if (events.data?.some((e: any) => e.query === 'kimchi garlic')) break;
      }
      const hit = events.data.find((e: any) => e.query === 'kimchi garlic');
      expect(hit.store_ids).toEqual([]);
      expect(hit.results[0]).toMatchObject({ store_id: WEB, filename: 'https://example.org/kimchi' });
    });
  });

  describe('without a web search provider', () => {
    beforeAll(async () => {
      t = await startTestLarder();
      key = (await t.newOrganization('no-web')).apiKey;
      c = t.client(key);
      store = await ingest(c, 'plain-pantry');
    });
    afterAll(() => t?.close());

    it('the web alone is a 400 that says how to configure a provider', async () => {
      const err = await c.stores.search({ query: 'cabbage', store_identifiers: [WEB] }).then(
        () => null,
        (e: any) => e,
      );
      expect(err?.status).toBe(400);
      expect(err.error).toMatchObject({ error: { code: 400, type: 'bad_request' } });
      expect(err.message).toContain('LARDER_SEARXNG_URL');
      expect(err.headers.get('larder-web-search')).toBe('skipped; no provider configured');
    });

    it('the web with a store answers the store’s results and says the web part was skipped (mgrep --web keeps working)', async () => {
      const filters = { all: [{ key: 'path', operator: 'starts_with' as const, value: '/home/cook/pantry' }] };
      const { data: r, response } = await c.stores
        .search({
          query: 'sauerkraut',
          store_identifiers: [store, WEB],
          top_k: 10,
          search_options: { rerank: true },
          filters,
        })
        .withResponse();
      expect(response.headers.get('larder-web-search')).toBe('skipped; no provider configured');
      expect(r.data.length).toBeGreaterThan(0);
      expect(r.data[0].filename).toBe('sauerkraut.md');
      expect(r.data.every((x) => x.store_id === store)).toBe(true);
    });
  });
});

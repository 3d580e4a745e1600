/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

describe('Activity listings and histograms from the projected activity streams', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  let otherKey: string;
  let store: string;
  let orgId: string;
  const get = async (path: string, k = key): Promise<any> => {
    const r = await fetch(`${t.baseURL}${path}`, { headers: { authorization: `Bearer ${k}` } });
    return { status: r.status, body: await r.json() };
  };
  const post = async (path: string, body: unknown, k = key): Promise<any> => {
    const r = await fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  /** Activity is projected asynchronously: wait until the listing has `n` events. */
  const until = async (path: string, n: number) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await get(path);
      if (r.body.data?.length >= n || Date.now() > deadline) return r;
      await new Promise((res) => setTimeout(res, 100));
    }
  };

  beforeAll(async () => {
    t = await startTestLarder();
    const org = await t.newOrganization('activity');
    key = org.apiKey;
    orgId = org.organizationId;
    otherKey = (await t.newOrganization('other')).apiKey;
    c = t.client(key);
    store = (await c.stores.create({ name: 'logbook' })).id;
    await c.stores.create({ name: 'quiet' });
    for (const [name, text] of [
      ['a.txt', 'Apricots dry well in the sun.'],
      ['b.md', '# Beans\n\nBlanch green beans before freezing them.'],
      ['c.txt', 'Cherries keep in brandy for a year.'],
    ]) {
      await c.stores.files.uploadAndPoll({
        storeIdentifier: store,
        file: await toFile(Buffer.from(text), name, { type: name.endsWith('.md') ? 'text/markdown' : 'text/plain' }),
        pollIntervalMs: 100,
      });
    }
    for (const q of ['drying apricots', 'freezing beans', 'cherries in brandy'])
      await c.stores.search({ query: q, store_identifiers: [store] });
    for (const pattern of ['brandy', 'bean']) await c.stores.grep({ pattern, store_identifiers: [store] });
  });
  afterAll(async () => t?.close());

  it('lists ingestion events of a store with the fields of a public activity event, newest first, paged both ways', async () => {
    const all = await until(`/v1/stores/${store}/events?event_type=ingestion`, 3);
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(3);
    expect(all.body.data.map((e: any) => e.filename)).toEqual(['c.txt', 'b.md', 'a.txt']);
    expect(all.body.data[0]).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      type: 'ingestion',
      store_id: store,
      store_file_id: expect.any(String),
      total_time: expect.stringMatching(/^PT/),
      queue_time: expect.stringMatching(/^PT/),
      ingestion_time: expect.stringMatching(/^PT/),
      chunk_count: 1,
      contextualization: false,
      mode: 'fast',
      filename: 'c.txt',
    });
    const p1 = await get(`/v1/stores/logbook/events?event_type=ingestion&limit=2`);
    expect(p1.body.data.map((e: any) => e.filename)).toEqual(['c.txt', 'b.md']);
    expect(p1.body.pagination.has_more).toBe(true);
    const p2 = await get(
      `/v1/stores/logbook/events?event_type=ingestion&limit=2&after=${p1.body.pagination.last_cursor}`,
    );
    expect(p2.body.data.map((e: any) => e.filename)).toEqual(['a.txt']);
    expect(p2.body.pagination.has_more).toBe(false);
    const back = await get(
      `/v1/stores/logbook/events?event_type=ingestion&limit=2&before=${p2.body.pagination.first_cursor}`,
    );
    expect(back.body.data.map((e: any) => e.filename)).toEqual(['c.txt', 'b.md']);
    const total = await get(`/v1/stores/logbook/events?event_type=ingestion&limit=1&include_total=true`);
    expect(total.body.pagination.total).toBe(3);

    const middle = all.body.data[1].created_at;
    const after = await get(
      `/v1/stores/${store}/events?event_type=ingestion&filter_after=${encodeURIComponent(middle)}`,
    );
    expect(after.body.data.map((e: any) => e.filename)).toEqual(['c.txt']);
    const before = await get(
      `/v1/stores/${store}/events?event_type=ingestion&filter_before=${encodeURIComponent(middle)}`,
    );
    expect(before.body.data.map((e: any) => e.filename)).toEqual(['a.txt']);
  });

  it('lists search and grep events; the organization-wide listing returns the same shape', async () => {
    const searches = await until(`/v1/stores/${store}/events?event_type=search`, 3);
    expect(searches.body.data.map((e: any) => e.query)).toEqual([
      'cherries in brandy',
      'freezing beans',
      'drying apricots',
    ]);
    const s = searches.body.data[0];
    expect(s).toMatchObject({
      type: 'search',
      store_ids: [store],
      search_time: expect.stringMatching(/^PT/),
      query: 'cherries in brandy',
      rerank: false,
      filters: null,
    });
    expect(s.results[0]).toMatchObject({
      store_id: store,
      file_id: expect.any(String),
      filename: 'c.txt',
      chunk_index: 0,
      score: expect.any(Number),
    });
    const greps = await until(`/v1/stores/${store}/events?event_type=grep`, 2);
    expect(greps.body.data.map((e: any) => e.pattern)).toEqual(['bean', 'brandy']);
    expect(greps.body.data[0]).toMatchObject({
      type: 'grep',
      store_ids: [store],
      case_sensitive: false,
      results: [expect.objectContaining({ filename: 'b.md' })],
    });

    const org = await get(`/v1/events?event_type=search`);
    expect(org.body.data).toEqual(searches.body.data);
    const narrowed = await get(`/v1/events?event_type=search&store_identifier=quiet`);
    expect(narrowed.body.data).toEqual([]);
    expect((await get(`/v1/stores/quiet/events?event_type=search`)).body.data).toEqual([]);
  });

  it('histograms count events per bucket and type, with empty buckets as 0', async () => {
    const now = Date.now();
    const h = await post(`/v1/stores/${store}/events/histogram`, {
      start_time: new Date(now - 3600_000).toISOString(),
      end_time: new Date(now + 60_000).toISOString(),
      bucket_seconds: 600,
    });
    expect(h.status).toBe(200);
    expect(h.body.object).toBe('store.histogram');
    const types = new Set(h.body.data.map((b: any) => b.type));
    expect(types).toEqual(new Set(['store.file.completed', 'store.search', 'store.grep']));
    expect(h.body.data).toHaveLength(7 * 3); // 61 minutes in 10-minute buckets, three types
    const sum = (type: string) =>
      h.body.data.filter((b: any) => b.type === type).reduce((n: number, b: any) => n + b.event_count, 0);
    expect([sum('store.file.completed'), sum('store.search'), sum('store.grep')]).toEqual([3, 3, 2]);
    expect(h.body.data.filter((b: any) => b.event_count === 0).length).toBeGreaterThan(0);
    expect(h.body.data[0]).toEqual({
      bucket_start: new Date(now - 3600_000).toISOString(),
      bucket_end: new Date(now - 3000_000).toISOString(),
      event_count: 0,
      type: expect.any(String),
    });
    const only = await post(`/v1/stores/${store}/events/histogram`, {
      start_time: new Date(now - 3600_000).toISOString(),
      end_time: new Date(now + 60_000).toISOString(),
      event_types: ['grep'],
    });
    expect(new Set(only.body.data.map((b: any) => b.type))).toEqual(new Set(['store.grep']));
  });

  it('answers bad input with 422 and keeps organizations apart', async () => {
    expect((await get(`/v1/stores/${store}/events`)).status).toBe(422);
    expect((await get(`/v1/stores/${store}/events?event_type=upload`)).status).toBe(422);
    expect((await get(`/v1/stores/${store}/events?event_type=search&limit=0`)).status).toBe(422);
    expect((await get(`/v1/stores/${store}/events?event_type=search&filter_after=yesterday`)).status).toBe(422);
    expect((await post(`/v1/stores/${store}/events/histogram`, { bucket_seconds: 0 })).status).toBe(422);
    expect(
      (
        await post(`/v1/stores/${store}/events/histogram`, {
          start_time: '2026-01-02T00:00:00Z',
          end_time: '2026-01-01T00:00:00Z',
        })
      ).status,
    ).toBe(422);
    expect((await get(`/v1/stores/${store}/events?event_type=search`, otherKey)).status).toBe(404);
    expect((await get(`/v1/events?event_type=search`, otherKey)).body.data).toEqual([]);
    expect((await post(`/v1/stores/${store}/events/histogram`, {}, otherKey)).status).toBe(404);
  });

  it('replaying the activity projection reproduces the listings and histograms exactly', async () => {
    const paths = [
      `/v1/stores/${store}/events?event_type=ingestion`,
      `/v1/stores/${store}/events?event_type=search`,
      `/v1/events?event_type=grep`,
    ];
    const before = await Promise.all(paths.map((p) => get(p)));
    const hist = {
      start_time: new Date(Date.now() - 3600_000).toISOString(),
      end_time: new Date(Date.now() + 60_000).toISOString(),
      bucket_seconds: 300,
    };
    const h1 = await post(`/v1/stores/${store}/events/histogram`, hist);
    await t.larder.infra.runner.replay('activity');
    const after = await Promise.all(paths.map((p) => get(p)));
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
    expect((await post(`/v1/stores/${store}/events/histogram`, hist)).body).toEqual(h1.body);
  });

  it('admin re-ingestion: admin keys only; one job per selected file, through the normal path, listed as ingestion events', async () => {
    const denied = await post(`/v1/admin/stores/${orgId}/logbook/reingest`, {});
    expect(denied.status).toBe(403);
    expect((await post(`/v1/admin/stores/${orgId}/logbook/reingest?statuses=bogus`, {}, t.rootKey)).status).toBe(422);
    expect((await post(`/v1/admin/stores/${orgId}/no-such-store/reingest`, {}, t.rootKey)).status).toBe(404);
    const none = await post(`/v1/admin/stores/${orgId}/logbook/reingest?statuses=failed`, {}, t.rootKey);
    expect(none.body).toEqual({ message: '0 store files queued for re-ingestion', jobs_created: 0 });
    const r = await post(`/v1/admin/stores/${orgId}/logbook/reingest?statuses=completed&billable=false`, {}, t.rootKey);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: '3 store files queued for re-ingestion', jobs_created: 3 });
    const events = await until(`/v1/stores/${store}/events?event_type=ingestion`, 6);
    expect(events.body.data).toHaveLength(6);
    const s = await c.stores.retrieve(store);
    expect(s.file_counts).toMatchObject({ completed: 3, total: 3 });
    const hit = await c.stores.search({ query: 'cherries brandy', store_identifiers: [store], top_k: 1 });
    expect(hit.data[0].filename).toBe('c.txt');
  });

  it('a store lists every event type the organization does: qa and completion too', async () => {
    for (const kind of ['qa', 'completion']) {
      const r = await get(`/v1/stores/${store}/events?event_type=${kind}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ object: 'list', data: [], pagination: { has_more: false } });
    }
    const now = Date.now();
    const h = await post(`/v1/stores/${store}/events/histogram`, {
      start_time: new Date(now - 3600_000).toISOString(),
      end_time: new Date(now).toISOString(),
      event_types: ['qa', 'completion'],
    });
    expect(h.status).toBe(200);
    expect(new Set(h.body.data.map((b: any) => b.type))).toEqual(new Set(['store.question_answer', 'model_request']));
  });

  it('list-chunks and metadata facets leave no search event and are not billed as searches', async () => {
    const before = await until(`/v1/stores/${store}/events?event_type=search`, 4);
    const n = before.body.data.length;
    await t.larder.infra.runner.waitFor(['billing'], await t.larder.infra.eventStore.headPosition());
    const billed = (await get('/v1/billing/summary')).body.usages.searches.current;
    await c.stores.listChunks({ store_identifiers: [store], top_k: 2 });
    await c.stores.metadataFacets({ store_identifiers: [store], query: 'beans' });
    await c.stores.search({ query: 'green beans after the listing', store_identifiers: [store] });
    const after = await until(`/v1/stores/${store}/events?event_type=search`, n + 1);
    // the search's event is projected after the listing's and the facets' source events: none of those came
    await t.larder.infra.runner.waitFor(['activity', 'billing'], await t.larder.infra.eventStore.headPosition());
    const settled = await get(`/v1/stores/${store}/events?event_type=search`);
    expect(settled.body.data).toHaveLength(n + 1);
    expect(settled.body.data[0]).toMatchObject({ type: 'search', query: 'green beans after the listing' });
    expect(after.body.data.every((e: any) => typeof e.query === 'string')).toBe(true);
    expect(Number((await get('/v1/billing/summary')).body.usages.searches.current)).toBe(Number(billed) + 1);
  });
});

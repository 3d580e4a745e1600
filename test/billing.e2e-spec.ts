/* eslint-disable @typescript-eslint/no-explicit-any */
import { randomUUID } from 'crypto';
import Mixedbread from '@mixedbread/sdk';
import { streamName, uuidFrom } from '@larder/kernel';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

const PRICES = { storage: '0.73', ingestion_tokens: '0.02', parsing_tokens: '1.00', searches: '0.50', greps: '0.10' };

/**
 * A fixed price table and a scripted activity history (domain events appended to the event store
 * with chosen times inside the current period) give exact decimal totals.
 */
describe('Billing from metered activity', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  let orgId: string;
  let s1: string;
  let s2: string;
  const H = 3600_000;

  const get = async (path: string, k = key): Promise<any> => {
    const r = await fetch(`${t.baseURL}${path}`, { headers: { authorization: `Bearer ${k}` } });
    return { status: r.status, body: await r.json() };
  };

  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_BILLING_PRICES: JSON.stringify(PRICES), LARDER_BILLING_CREDIT: '0.1' } });
    const org = await t.newOrganization('billing');
    key = org.apiKey;
    orgId = org.organizationId;
    c = t.client(key);
    s1 = (await c.stores.create({ name: 'billed-one' })).id;
    s2 = (await c.stores.create({ name: 'billed-two' })).id;

    const now = new Date();
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const at = (hours: number) => new Date(start + hours * H).toISOString();
    const es = t.larder.infra.eventStore;
    const meta = { orgId, actor: 'script' };
    const fileA = randomUUID();
    const fileB = randomUUID();
    const sf = (store: string, file: string) => streamName('store_file', uuidFrom(`script:${store}:${file}`));
    const added = (store: string, file: string, bytes: number, hours: number, generation = 1) => ({
      type: 'StoreFileAdded',
      data: {
        storeId: store,
        fileId: file,
        organizationId: orgId,
        filename: 'scripted.bin',
        mimeType: 'application/octet-stream',
        bytes,
        sha256: 'x',
        blobKey: 'none',
        fileVersion: 1,
        metadata: null,
        externalId: null,
        parsingStrategy: 'fast',
        contextualization: false,
        copiedFrom: null,
        generation,
        at: at(hours),
      },
      metadata: meta,
    });
    const ingested = (store: string, file: string, tokens: number, mode: string, hours: number, generation = 1) => ({
      type: 'StoreFileIngested',
      data: {
        storeId: store,
        fileId: file,
        generation,
        filename: 'scripted.bin',
        chunksKey: 'k',
        vectorsKey: null,
        model: null,
        dimensions: 0,
        chunkCount: 1,
        usageTokens: tokens,
        mode,
        contextualization: false,
        queueMs: 5,
        ingestionMs: 10,
        totalMs: 15,
        at: at(hours),
      },
      metadata: meta,
    });
    // store 1: 2 GB held for 73 hours (0.2 GB-month), 1.5M tokens ingested fast
    await es.appendToStream(sf(s1, fileA), [
      added(s1, fileA, 2_000_000_000, 1),
      ingested(s1, fileA, 1_500_000, 'fast', 2),
      {
        type: 'StoreFileRemoved',
        data: { storeId: s1, fileId: fileA, organizationId: orgId, reason: 'deleted', at: at(74) },
        metadata: meta,
      },
    ]);
    // store 2: 250k tokens in high_quality (ingestion and parsing), then a free re-ingestion
    await es.appendToStream(sf(s2, fileB), [
      added(s2, fileB, 0, 2),
      ingested(s2, fileB, 250_000, 'high_quality', 3),
      {
        type: 'StoreFileReingestionRequested',
        data: {
          storeId: s2,
          fileId: fileB,
          organizationId: orgId,
          generation: 2,
          filename: 'scripted.bin',
          externalId: null,
          metadata: null,
          billable: false,
          at: at(5),
        },
        metadata: meta,
      },
      ingested(s2, fileB, 250_000, 'high_quality', 6, 2),
    ]);
    // one search over both stores, three greps on store 1
    const search = (type: string, storeIds: string[], hours: number) => ({
      type,
      data: {
        searchId: randomUUID(),
        organizationId: orgId,
        apiKeyId: 'script',
        storeIds,
        query: 'q',
        pattern: 'p',
        caseSensitive: false,
        rewrittenQuery: null,
        rerank: false,
        filters: null,
        topK: 10,
        results: [],
        searchTimeMs: 3,
        at: at(hours),
      },
      metadata: meta,
    });
    const last = await es.appendToStream(streamName('search_activity', orgId), [
      search('StoreSearchPerformed', [s1, s2], 4),
      search('StoreGrepPerformed', [s1], 4),
      search('StoreGrepPerformed', [s1], 4),
      search('StoreGrepPerformed', [s1], 5),
    ]);
    await t.larder.infra.runner.waitFor(['billing'], last.position);
  });
  afterAll(async () => t?.close());

  it('prices each store exactly; the summary is the sum of the stores and parsing, less the credit', async () => {
    const stores = (await get('/v1/billing/stores')).body;
    expect(stores.object).toBe('list');
    const one = stores.data.find((s: any) => s.store_id === s1);
    const two = stores.data.find((s: any) => s.store_id === s2);
    // 2 GB × 73 h × 0.73/730 = 0.146; 1.5M × 0.02/1M = 0.03; 1 search × 0.5/1k; 3 greps × 0.1/1k
    expect(one).toEqual({
      store_id: s1,
      cost: '0.1768',
      cost_per_metric: { storage: '0.146', ingestion_tokens: '0.03', searches: '0.0005', greps: '0.0003' },
    });
    // 0.25M × 0.02/1M = 0.005 (the free re-ingestion is not charged); parsing is its own product
    expect(two).toEqual({
      store_id: s2,
      cost: '0.0055',
      cost_per_metric: { ingestion_tokens: '0.005', searches: '0.0005' },
    });

    const summary = (await get('/v1/billing/summary')).body;
    expect(summary.cost).toMatchObject({
      gross_usage_cost: '0.4323',
      balance_applied: '0.1',
      net_usage_cost: '0.3323',
    });
    expect(summary.cost.products).toEqual([
      { product_name: 'Store', gross_usage_cost: '0.1823', net_usage_cost: '0.0823', balance_applied: '0.1' },
      { product_name: 'Parsing', gross_usage_cost: '0.25', net_usage_cost: '0.25', balance_applied: '0' },
    ]);
    expect(summary.cost.phases).toEqual([
      { period: summary.period, gross_usage_cost: '0.4323', net_usage_cost: '0.3323', balance_applied: '0.1' },
    ]);
    expect(summary.balance).toMatchObject({ current_balance: 0, next_effective_balance: 0.1 });
    expect(summary.usages.storage).toEqual({ current: '0.2', limit: null, unit: 'GB-month' });
    expect(summary.usages.ingestion_tokens).toEqual({ current: '1750000', limit: null, unit: 'tokens' });
    expect(summary.usages.parsing_tokens.current).toBe('250000');
    expect(summary.usages.searches.current).toBe('2');
    const start = new Date(summary.period.start);
    expect(start.getUTCDate()).toBe(1);
    expect(new Date(summary.period.end).getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
  });

  it('daily histograms cover every day of the period and add up to the totals', async () => {
    const h = (await get(`/v1/billing/stores/${s1}/costs/histogram`)).body;
    expect(h.object).toBe('cost.histogram');
    const days = new Date(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 0).getDate();
    expect(h.data).toHaveLength(days);
    expect(h.data[0]).toEqual({
      day: expect.stringMatching(/-01T00:00:00.000Z$/),
      cost: '0.0768',
      cost_per_metric: { storage: '0.046', ingestion_tokens: '0.03', searches: '0.0005', greps: '0.0003' },
    });
    expect(h.data.slice(1, 4).map((d: any) => d.cost_per_metric.storage)).toEqual(['0.048', '0.048', '0.004']);
    expect(h.data[10]).toEqual({ day: expect.any(String), cost: '0', cost_per_metric: {} });
    const parsing = (await get('/v1/billing/parsing/costs/histogram')).body;
    expect(parsing.data[0]).toMatchObject({ cost: '0.25', cost_per_metric: { parsing_tokens: '0.25' } });
    expect(parsing.data.slice(1).every((d: any) => d.cost === '0')).toBe(true);
  });

  it('replaying the billing projection reproduces every answer exactly', async () => {
    const paths = [
      '/v1/billing/stores',
      `/v1/billing/stores/${s1}/costs/histogram`,
      '/v1/billing/parsing/costs/histogram',
    ];
    const before = await Promise.all(paths.map((p) => get(p)));
    const summary = (await get('/v1/billing/summary')).body;
    await t.larder.infra.runner.replay('billing');
    expect((await Promise.all(paths.map((p) => get(p)))).map((r) => r.body)).toEqual(before.map((r) => r.body));
    const again = (await get('/v1/billing/summary')).body;
    expect({ ...again, generated_at: null }).toEqual({ ...summary, generated_at: null });
  });

  it('another organization sees none of it', async () => {
    const other = await t.newOrganization('not billed');
    expect((await get('/v1/billing/stores', other.apiKey)).body.data).toEqual([]);
    expect((await get('/v1/billing/summary', other.apiKey)).body.cost.gross_usage_cost).toBe('0');
    expect((await get(`/v1/billing/stores/${s1}/costs/histogram`, other.apiKey)).status).toBe(404);
  });
});

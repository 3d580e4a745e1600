import { streamName, uuidFrom } from '@larder/kernel';
import { projectionTestDatabase, Row, TestEventLog } from '@larder/kernel/testing';
import { SearchActivityEvent } from '@larder/search/events';
import { StoreCommand, storeDecider } from '@larder/stores/store.aggregate';
import { StoreFileCommand, storeFileDecider } from '@larder/stores/store-file.aggregate';
import { storeFileStream, storeStream } from '@larder/stores/streams';
import { BillingProjection } from './billing.projection';
import { BILLING_FREE_TABLE, BILLING_STORAGE_TABLE, BILLING_USAGE_TABLE } from './billing.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const store = (n: number) => `5704e000-0000-4000-8000-00000000000${n}`;
const file = (n: number) => `f11e0000-0000-4000-8000-00000000000${n}`;
const KEY = 'a0000000-0000-4000-8000-000000000001';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();

type Cmd<C> = C extends { now: Date } ? Omit<C, 'now'> : never;

class History {
  readonly log = new TestEventLog();
  clock = 0;
  store(c: Cmd<StoreCommand>) {
    this.log.decide(
      storeDecider,
      storeStream(c.storeId),
      { ...c, now: t(++this.clock) },
      { orgId: c.organizationId, actor: KEY },
    );
  }
  file(c: Cmd<StoreFileCommand>) {
    return this.log.decide(
      storeFileDecider,
      storeFileStream(c.storeId, c.fileId),
      { ...c, now: t(++this.clock) },
      { orgId: c.organizationId, actor: KEY },
    );
  }
  createStore(s: number, organizationId = ORG) {
    this.store({
      type: 'CreateStore',
      storeId: store(s),
      organizationId,
      name: `s${s}`,
      description: null,
      isPublic: false,
      license: null,
      metadata: null,
      config: { contextualization: false, save_content: true },
      expiresAfter: null,
    });
  }
  add(s: number, f: number, bytes: number, o: { organizationId?: string; mode?: 'fast' | 'high_quality' } = {}) {
    this.file({
      type: 'AddStoreFile',
      storeId: store(s),
      organizationId: o.organizationId ?? ORG,
      fileId: file(f),
      filename: `f${f}`,
      mimeType: 'text/plain',
      bytes,
      sha256: `h${f}`,
      blobKey: `b${f}`,
      fileVersion: 1,
      metadata: null,
      externalId: null,
      parsingStrategy: o.mode ?? 'fast',
      contextualization: false,
    });
  }
  /** Ingests and answers the StoreFileIngested event's id. */
  ingest(
    s: number,
    f: number,
    generation: number,
    usageTokens: number,
    o: { organizationId?: string; mode?: 'fast' | 'high_quality' } = {},
  ): string {
    const ids = {
      storeId: store(s),
      organizationId: o.organizationId ?? ORG,
      fileId: file(f),
      generation,
      workerId: 'w',
    };
    this.file({ type: 'StartIngestion', ...ids, leaseMs: 60_000 });
    this.file({
      type: 'RecordIngested',
      ...ids,
      filename: `f${f}`,
      chunksKey: 'c',
      vectorsKey: 'v',
      model: 'm',
      dimensions: 4,
      chunkCount: 2,
      usageTokens,
      mode: o.mode ?? 'fast',
      contextualization: false,
      queueMs: 0,
      ingestionMs: 0,
      totalMs: 0,
    });
    return this.log.events.at(-1)!.id;
  }
  remove(s: number, f: number, reason: 'deleted' | 'overwritten' = 'deleted') {
    this.file({ type: 'RemoveStoreFile', storeId: store(s), organizationId: ORG, fileId: file(f), reason });
  }
  /** Appends a search activity event and answers its id. */
  activity(e: SearchActivityEvent): string {
    return this.log.append(
      streamName('search_activity', e.data.organizationId),
      { orgId: e.data.organizationId, actor: KEY },
      e,
    )[0].id;
  }
}

const usage = (
  eventId: string,
  storeId: string,
  metric: string,
  quantity: number,
  s: number,
  organizationId = ORG,
): Row => ({
  id: uuidFrom(`billing:${eventId}:${storeId}:${metric}`),
  organization_id: organizationId,
  store_id: storeId,
  metric,
  quantity: String(quantity),
  at: t(s),
});
const interval = (
  s: number,
  f: number,
  generation: number,
  bytes: number,
  from: number,
  to: number | null,
  organizationId = ORG,
): Row => ({
  store_id: store(s),
  file_id: file(f),
  generation,
  organization_id: organizationId,
  bytes: String(bytes),
  from_at: t(from),
  to_at: to === null ? null : t(to),
});
const byKey = (a: Row, b: Row) =>
  JSON.stringify([a.store_id, a.file_id, a.generation, a.metric, a.id]).localeCompare(
    JSON.stringify([b.store_id, b.file_id, b.generation, b.metric, b.id]),
  );

describe('billing projection', () => {
  const pg = projectionTestDatabase();

  it('meters ingestion and parsing tokens, searches per store, greps, free re-ingestion, and storage intervals', async () => {
    const h = new History();
    h.createStore(1); // t1
    h.createStore(2); // t2
    h.add(1, 1, 1_000); // t3
    const ingest1 = h.ingest(1, 1, 1, 50); // t4, t5
    h.add(1, 2, 2_000, { mode: 'high_quality' }); // t6
    const ingest2 = h.ingest(1, 2, 1, 80, { mode: 'high_quality' }); // t7, t8
    h.file({
      type: 'ReingestStoreFile',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(1),
      filename: 'f1',
      externalId: null,
      metadata: null,
      billable: false,
    }); // t9
    h.ingest(1, 1, 2, 50); // t10, t11: an administrator's re-ingestion, not billed
    h.file({
      type: 'ReingestStoreFile',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(2),
      filename: 'f2',
      externalId: null,
      metadata: null,
      billable: true,
    }); // t12
    const reingest2 = h.ingest(1, 2, 2, 80, { mode: 'high_quality' }); // t13, t14: billed
    h.add(1, 3, 3_000); // t15
    h.ingest(1, 3, 1, 0); // t16, t17: nothing to bill
    h.remove(1, 3); // t18
    h.add(2, 4, 4_000); // t19
    h.store({ type: 'DeleteStore', storeId: store(2), organizationId: ORG }); // t20
    const common = { organizationId: ORG, apiKeyId: KEY, filters: null, topK: 5, results: [], searchTimeMs: 1 };
    const search = h.activity({
      type: 'StoreSearchPerformed',
      data: {
        ...common,
        searchId: 's',
        storeIds: [store(1), store(2)],
        query: 'q',
        rewrittenQuery: null,
        rerank: false,
        at: at(21),
      },
    });
    const grep = h.activity({
      type: 'StoreGrepPerformed',
      data: { ...common, searchId: 'g', storeIds: [store(1)], pattern: 'x', caseSensitive: false, at: at(22) },
    });
    h.activity({
      type: 'StoreChunksListed',
      data: { ...common, searchId: 'l', storeIds: [store(1)], operation: 'list_chunks', query: null, at: at(23) },
    }); // not billed
    h.clock = 23;
    h.createStore(5, OTHER_ORG); // t24
    h.add(5, 5, 500, { organizationId: OTHER_ORG }); // t25
    const otherIngest = h.ingest(5, 5, 1, 7, { organizationId: OTHER_ORG }); // t26, t27

    const rows = await pg.project(new BillingProjection(), h.log.events);
    expect([...rows[BILLING_USAGE_TABLE]].sort(byKey)).toEqual(
      [
        usage(ingest1, store(1), 'ingestion_tokens', 50, 5),
        usage(ingest2, store(1), 'ingestion_tokens', 80, 8),
        usage(ingest2, store(1), 'parsing_tokens', 80, 8),
        usage(reingest2, store(1), 'ingestion_tokens', 80, 14),
        usage(reingest2, store(1), 'parsing_tokens', 80, 14),
        usage(search, store(1), 'searches', 1, 21),
        usage(search, store(2), 'searches', 1, 21),
        usage(grep, store(1), 'greps', 1, 22),
        usage(otherIngest, store(5), 'ingestion_tokens', 7, 27, OTHER_ORG),
      ].sort(byKey),
    );
    expect(rows[BILLING_STORAGE_TABLE]).toEqual([
      interval(1, 1, 1, 1_000, 3, null),
      interval(1, 2, 1, 2_000, 6, null),
      interval(1, 3, 1, 3_000, 15, 18),
      interval(2, 4, 1, 4_000, 19, 20),
      interval(5, 5, 1, 500, 25, null, OTHER_ORG),
    ]);
    expect(rows[BILLING_FREE_TABLE]).toEqual([{ store_id: store(1), file_id: file(1), generation: 2 }]);
  });

  // BUG (idempotency: re-applying an event must change nothing): StoreFileRemoved closes every open interval of the store
  // file (`to_at IS NULL`), whatever its generation. Re-applying the log after a file was removed and
  // re-added (a replaced file's new content, or a file added again) re-applies the old removal onto
  // the new generation's open interval: generation 2 ends at the old removal time instead of staying
  // open, so its storage stops being billed.
  it('a file removed and added again keeps its new interval open when the log is re-applied', async () => {
    const h = new History();
    h.createStore(1); // t1
    h.add(1, 1, 1_000); // t2
    h.remove(1, 1, 'overwritten'); // t3
    h.add(1, 1, 1_500); // t4, generation 2
    const rows = await pg.project(new BillingProjection(), h.log.events);
    expect(rows[BILLING_STORAGE_TABLE]).toEqual([interval(1, 1, 1, 1_000, 2, 3), interval(1, 1, 2, 1_500, 4, null)]);
  });
});

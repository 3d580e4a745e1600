import { Pool } from 'pg';
import { createServerTestDatabase, TestDatabase } from '../../database/src/testing/test-databases';
import { PostgresEventStore } from '../../event-store/src/postgres/postgres.event-store';
import { ActivityStreamReactor } from '../../activity/src/activity-stream.reactor';
import { QUARANTINE_STREAM, readQuarantine, RecordQuarantined } from '@larder/event-store';
import { RecordedEvent, streamName } from '@larder/kernel';
import { SearchActivity } from './search-activity';
import { searchActivityStream } from './streams';
import type { SearchActivityEvent } from './events';

/** A search record as the search handlers queue it; `query` may hold what the store cannot keep. */
const searchEvent = (i: number, query: string): SearchActivityEvent =>
  ({
    type: 'StoreSearchPerformed',
    data: {
      searchId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      organizationId: 'org_a',
      apiKeyId: 'key_a',
      storeIds: ['store_a'],
      filters: null,
      topK: 10,
      results: [],
      searchTimeMs: 1,
      at: new Date(0).toISOString(),
      query,
      rewrittenQuery: null,
      rerank: false,
    },
  }) as unknown as SearchActivityEvent;

describe('one record the event store refuses loses none of the others of its batch (postgres)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let store: PostgresEventStore;
  const logged: string[] = [];
  const log = { error: (m: string) => logged.push(m), warn: (m: string) => logged.push(m) };

  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined);
    store = new PostgresEventStore(pool, { schema: 'es_quarantine', pollMs: 20 });
    await store.setup();
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await db.drop();
  });

  it('search activity: 99 of a batch of 100 appended, the poisoned one quarantined with its reason', async () => {
    const activity = new SearchActivity(store, { now: () => new Date() }, { uuid: () => 'id' } as never);
    Object.assign(activity, { logger: log });
    for (let i = 0; i < 100; i++)
      activity.record('org_a', searchEvent(i, i === 37 ? 'bad \ud800 query' : `query ${i}`));
    await activity.flush();

    const recorded = await store.readStream(searchActivityStream('org_a'));
    expect(recorded).toHaveLength(99);
    expect(recorded.map((e) => (e.data as { query: string }).query)).toEqual(
      Array.from({ length: 100 }, (_, i) => `query ${i}`).filter((q) => q !== 'query 37'),
    );

    const q = await readQuarantine(store);
    expect(q.count).toBe(1);
    const [bad] = q.newest;
    expect(bad).toMatchObject({
      stream: searchActivityStream('org_a'),
      recordType: 'StoreSearchPerformed',
      organizationId: 'org_a',
    });
    expect(bad.reason).toMatch(/unicode|surrogate|escape/i);
    // the payload keeps the record, its lone surrogate escaped
    expect(JSON.parse(bad.payload).data.query).toBe('bad \ud800 query');
    expect(logged.some((m) => m.includes('quarantined StoreSearchPerformed') && m.includes(QUARANTINE_STREAM))).toBe(
      true,
    );
  });

  it('activity stream: 99 entries of a batch of 100 appended, the poisoned one quarantined, and the batch does not throw', async () => {
    const reactor = new ActivityStreamReactor(store);
    Object.assign(reactor, { logger: log });
    const source: RecordedEvent[] = Array.from({ length: 100 }, (_, i) => {
      const e = searchEvent(i, i === 63 ? 'bad \udfff query' : `query ${i}`);
      return {
        id: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        type: e.type,
        data: e.data,
        metadata: { orgId: 'org_b' },
        streamId: searchActivityStream('org_b'),
        revision: i,
        position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
        createdAt: new Date(0),
      };
    });
    await reactor.handleBatch(source);

    const entries = await store.readStream(streamName('activity', 'org_b'));
    expect(entries).toHaveLength(99);
    expect(entries.map((e) => (e.data as { sourceEventId: string }).sourceEventId)).not.toContain(source[63].id);
    const q = await readQuarantine(store);
    expect(q.count).toBe(2);
    expect(q.newest[0]).toMatchObject<Partial<RecordQuarantined['data']>>({
      stream: streamName('activity', 'org_b'),
      recordType: 'ActivityRecorded',
      organizationId: 'org_b',
    });

    // re-running the batch (a restart) appends nothing twice
    await reactor.handleBatch(source);
    expect(await store.readStream(streamName('activity', 'org_b'))).toHaveLength(99);
    expect((await readQuarantine(store)).count).toBe(2);
  });
});

import { RecordedEvent, streamName, uuidFrom } from '@larder/kernel';
import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { InMemoryEventStore } from '@larder/event-store/in-memory/in-memory.event-store';
import { ActivityStreamReactor } from '@larder/activity/activity-stream.reactor';
import { SearchActivityEvent, SearchEventResult } from '@larder/search/events';
import { storeFileDecider } from '@larder/stores/store-file.aggregate';
import { storeFileStream } from '@larder/stores/streams';
import { ActivityProjection } from './activity.projection';
import { ACTIVITY_TABLE } from './activity.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const S1 = '5704e000-0000-4000-8000-000000000001';
const S2 = '5704e000-0000-4000-8000-000000000002';
const S3 = '5704e000-0000-4000-8000-000000000003';
const F1 = 'f11e0000-0000-4000-8000-000000000001';
const KEY = 'a0000000-0000-4000-8000-000000000001';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();
const result: SearchEventResult = {
  store_id: S1,
  file_id: F1,
  filename: 'guide.md',
  chunk_index: 0,
  score: 0.91,
  first_stage_position: 1,
  first_stage_source: 'both',
};

/** The source events of an organization's activity: an ingestion, a search over two stores, a grep, a listing; and another organization's search. */
function sources(): RecordedEvent[] {
  const log = new TestEventLog();
  const ids = { storeId: S1, organizationId: ORG, fileId: F1 };
  const run = (c: object, s: number) =>
    log.decide(
      storeFileDecider,
      storeFileStream(S1, F1),
      { ...c, now: t(s) } as Parameters<typeof storeFileDecider.decide>[0],
      { orgId: ORG, actor: 'key' },
    );
  run(
    {
      type: 'AddStoreFile',
      ...ids,
      filename: 'guide.md',
      mimeType: 'text/markdown',
      bytes: 10,
      sha256: 'h',
      blobKey: 'b',
      fileVersion: 1,
      metadata: null,
      externalId: null,
      parsingStrategy: 'high_quality',
      contextualization: false,
    },
    1,
  );
  run({ type: 'StartIngestion', ...ids, generation: 1, workerId: 'w', leaseMs: 60_000 }, 2);
  run(
    {
      type: 'RecordIngested',
      ...ids,
      generation: 1,
      workerId: 'w',
      filename: 'guide.md',
      chunksKey: 'c',
      vectorsKey: 'v',
      model: 'm',
      dimensions: 4,
      chunkCount: 3,
      usageTokens: 50,
      mode: 'high_quality',
      contextualization: false,
      queueMs: 1500,
      ingestionMs: 61_250,
      totalMs: 62_750,
    },
    3,
  );
  const search = (organizationId: string, ...events: SearchActivityEvent[]) =>
    log.append(streamName('search_activity', organizationId), { orgId: organizationId, actor: KEY }, ...events);
  const common = { organizationId: ORG, apiKeyId: KEY, filters: null, topK: 10, results: [result], searchTimeMs: 42 };
  search(ORG, {
    type: 'StoreSearchPerformed',
    data: {
      ...common,
      searchId: 's1',
      storeIds: [S1, S2],
      query: 'pto',
      rewrittenQuery: 'paid time off',
      rerank: true,
      at: at(4),
    },
  });
  search(ORG, {
    type: 'StoreGrepPerformed',
    data: {
      ...common,
      searchId: 's2',
      storeIds: [S1],
      pattern: 'P[0-9]+',
      caseSensitive: true,
      filters: { key: 'lang', operator: 'eq', value: 'en' },
      at: at(5),
    },
  });
  search(ORG, {
    type: 'StoreChunksListed',
    data: { ...common, searchId: 's3', storeIds: [S2], operation: 'list_chunks', query: null, results: [], at: at(6) },
  });
  search(OTHER_ORG, {
    type: 'StoreSearchPerformed',
    data: {
      ...common,
      organizationId: OTHER_ORG,
      searchId: 's4',
      storeIds: [S3],
      query: 'q',
      rewrittenQuery: null,
      rerank: false,
      results: [],
      searchTimeMs: 3_723_004,
      at: at(7),
    },
  });
  return log.events;
}

describe('activity projection', () => {
  const pg = projectionTestDatabase();

  it('indexes the activity streams the reactor writes: one row per entry, by kind, organization and stores', async () => {
    const src = sources();
    const store = new InMemoryEventStore();
    const reactor = new ActivityStreamReactor(store);
    for (const e of src) if (reactor.handles.includes(e.type as never)) await reactor.handle(e);
    for (const e of src) if (reactor.handles.includes(e.type as never)) await reactor.handle(e); // a re-run appends nothing new
    const recorded = await store.readAll();
    expect(recorded).toHaveLength(4); // the listing (StoreChunksListed) has no public event
    expect(new Set(recorded.map((e) => e.streamId))).toEqual(
      new Set([streamName('activity', ORG), streamName('activity', OTHER_ORG)]),
    );

    const rows = (await pg.project(new ActivityProjection(), recorded))[ACTIVITY_TABLE];
    const id = (source: RecordedEvent) => uuidFrom(`activity:${source.id}`);
    const [, , ingested, searched, grepped, listed, other] = src;
    expect(listed.type).toBe('StoreChunksListed');
    expect(rows.some((r) => (r as { id: string }).id === id(listed))).toBe(false);
    const expected = [
      {
        id: id(ingested),
        organization_id: ORG,
        kind: 'ingestion',
        store_ids: [S1],
        created_at: t(3),
        event: {
          type: 'ingestion',
          store_id: S1,
          store_file_id: F1,
          total_time: 'PT1M2.75S',
          queue_time: 'PT1.5S',
          ingestion_time: 'PT1M1.25S',
          chunk_count: 3,
          contextualization: false,
          mode: 'high_quality',
          filename: 'guide.md',
        },
      },
      {
        id: id(searched),
        organization_id: ORG,
        kind: 'search',
        store_ids: [S1, S2],
        created_at: t(4),
        event: {
          type: 'search',
          store_ids: [S1, S2],
          search_time: 'PT0.042S',
          query: 'pto',
          rewritten_query: 'paid time off',
          rewritten_filters: null,
          rewrite_rank_by: null,
          rewrite_rank_direction: null,
          rewrite_rank_mode: null,
          rerank: true,
          filters: null,
          results: [result],
        },
      },
      {
        id: id(grepped),
        organization_id: ORG,
        kind: 'grep',
        store_ids: [S1],
        created_at: t(5),
        event: {
          type: 'grep',
          store_ids: [S1],
          pattern: 'P[0-9]+',
          case_sensitive: true,
          search_time: 'PT0.042S',
          filters: { key: 'lang', operator: 'eq', value: 'en' },
          results: [result],
        },
      },
      {
        id: id(other),
        organization_id: OTHER_ORG,
        kind: 'search',
        store_ids: [S3],
        created_at: t(7),
        event: expect.objectContaining({ query: 'q', search_time: 'PT1H2M3.004S' }),
      },
    ];
    expect(rows).toEqual(expect.arrayContaining(expected));
    expect(rows).toHaveLength(expected.length);
  });

  it('ignores every other event type', async () => {
    expect((await pg.project(new ActivityProjection(), sources()))[ACTIVITY_TABLE]).toEqual([]);
  });
});

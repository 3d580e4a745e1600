import { toActivityEventResponse } from './activity.response';

describe('toActivityEventResponse: recorded results listed as the API objects', () => {
  const row = (event: Record<string, unknown>) => ({
    id: 'e1',
    kind: 'search',
    storeIds: ['s1', 's2'],
    createdAt: new Date('2026-11-30T00:00:00Z'),
    event,
  });
  const objects = [
    {
      store_id: 's2',
      file_id: 'f1',
      filename: 'a.md',
      chunk_index: 3,
      score: 0.75,
      first_stage_position: 1,
      first_stage_source: 'both',
    },
    {
      store_id: 'mixedbread/web',
      file_id: 'w1',
      filename: 'https://example.com/',
      chunk_index: 0,
      score: 0.5,
      first_stage_position: null,
      first_stage_source: null,
    },
  ];

  it('expands tuples, the store an index into the event’s store_ids (or its own id)', () => {
    const listed = toActivityEventResponse(
      row({
        type: 'search',
        store_ids: ['s1', 's2'],
        query: 'q',
        results: [
          [1, 'f1', 'a.md', 3, 0.75, 1, 'both'],
          ['mixedbread/web', 'w1', 'https://example.com/', 0, 0.5, null, null],
        ],
      }),
    );
    expect(listed).toEqual({
      id: 'e1',
      created_at: '2026-11-30T00:00:00.000Z',
      type: 'search',
      store_ids: ['s1', 's2'],
      query: 'q',
      results: objects,
    });
  });

  it('lists entries recorded with objects as they were, and events without results untouched', () => {
    expect(toActivityEventResponse(row({ type: 'search', store_ids: ['s1', 's2'], results: objects })).results).toEqual(
      objects,
    );
    expect(toActivityEventResponse(row({ type: 'ingestion', store_ids: ['s1'] }))).toEqual({
      id: 'e1',
      created_at: '2026-11-30T00:00:00.000Z',
      type: 'ingestion',
      store_ids: ['s1'],
    });
  });
});

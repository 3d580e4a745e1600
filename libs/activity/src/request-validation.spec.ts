import 'reflect-metadata';
import { validateRequest, ValidationFailedError } from '@larder/kernel';
import { ListStoreEventsRequestDto } from './queries/list-store-events/list-store-events.request.dto';
import { ListEventsRequestDto } from './queries/list-events/list-events.request.dto';
import { GetStoreEventsHistogramRequestDto } from './queries/get-store-events-histogram/get-store-events-histogram.request.dto';

type Problem = [(string | number)[], string, string];

async function problems(run: () => Promise<unknown>): Promise<Problem[]> {
  try {
    await run();
    return [];
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.detail.map((x) => [x.loc, x.type, x.msg]);
    throw err;
  }
}

const NOW = new Date('2026-03-01T12:00:00.000Z');

describe('activity request DTOs answer the contract’s 422 entries (loc, type, msg)', () => {
  it.each<[string, Record<string, string>, Problem[]]>([
    ['no event_type', {}, [[['query', 'event_type'], 'missing', 'Field required']]],
    [
      'an unknown kind',
      { event_type: 'upload' },
      [
        [
          ['query', 'event_type'],
          'enum',
          "Input should be 'ingestion', 'search', 'agentic_search', 'grep', 'completion', 'qa', 'embedding', 'reranking'",
        ],
      ],
    ],
    [
      'limit 0',
      { event_type: 'search', limit: '0' },
      [[['query', 'limit'], 'value_error', 'Input should be an integer from 1 to 100']],
    ],
    [
      'limit 2.5',
      { event_type: 'search', limit: '2.5' },
      [[['query', 'limit'], 'value_error', 'Input should be an integer from 1 to 100']],
    ],
    [
      'a bad date',
      { event_type: 'search', filter_after: 'yesterday' },
      [[['query', 'filter_after'], 'datetime_parsing', 'Input should be a valid datetime']],
    ],
  ])('store events: %s', async (_, query, expected) => {
    expect(await problems(() => validateRequest(ListStoreEventsRequestDto, query, 'query'))).toEqual(expected);
  });

  it('store and organization listings read their query', async () => {
    const store = await validateRequest(
      ListStoreEventsRequestDto,
      {
        event_type: 'grep',
        limit: '5',
        filter_before: '2026-01-01T00:00:00Z',
        include_total: 'true',
        after: 'c1',
        junk: 'x',
      },
      'query',
    );
    expect(store.listing()).toEqual({
      kind: 'grep',
      limit: 5,
      filterBefore: new Date('2026-01-01T00:00:00Z'),
      filterAfter: null,
      includeTotal: true,
      after: 'c1',
      before: undefined,
    });
    const org = await validateRequest(
      ListEventsRequestDto,
      { event_type: 'completion', store_identifier: 'pantry' },
      'query',
    );
    expect(org.listing()).toMatchObject({ kind: 'completion', limit: 20, includeTotal: false });
    expect(org.store_identifier).toBe('pantry');
    // a store's listing accepts every kind the organization's does
    for (const kind of ['qa', 'completion'])
      expect((await validateRequest(ListStoreEventsRequestDto, { event_type: kind }, 'query')).listing()).toMatchObject(
        { kind },
      );
  });

  const window = async (body: unknown) => (await validateRequest(GetStoreEventsHistogramRequestDto, body)).window(NOW);

  it.each<[string, unknown, Problem[]]>([
    [
      'bucket_seconds 0',
      { bucket_seconds: 0 },
      [[['body', 'bucket_seconds'], 'value_error', 'Input should be a positive integer']],
    ],
    [
      'a bad start',
      { start_time: 'monday' },
      [[['body', 'start_time'], 'datetime_parsing', 'Input should be a valid datetime']],
    ],
    [
      'an unknown kind',
      { event_types: ['qa', 'upload'] },
      [
        [
          ['body', 'event_types'],
          'enum',
          'Input should be a list of ingestion, search, agentic_search, grep, completion, qa, embedding, reranking',
        ],
      ],
    ],
    [
      'an end before the start',
      { start_time: '2026-01-02T00:00:00Z', end_time: '2026-01-01T00:00:00Z' },
      [[['body', 'end_time'], 'value_error', 'end_time must be after start_time']],
    ],
    [
      'too many buckets',
      { bucket_seconds: 1 },
      [[['body', 'bucket_seconds'], 'value_error', 'That makes 604800 buckets; at most 10000']],
    ],
  ])('histogram: %s', async (_, body, expected) => {
    expect(await problems(() => window(body))).toEqual(expected);
  });

  it('histogram: 2-hour buckets over the 7 days before now by default', async () => {
    expect(await window({})).toEqual({
      start: new Date('2026-02-22T12:00:00.000Z'),
      end: NOW,
      seconds: 7200,
      buckets: 84,
      kinds: ['ingestion', 'search', 'agentic_search', 'grep'],
    });
    expect((await window({ event_types: ['grep', 'grep'], bucket_seconds: 86_400 })).kinds).toEqual(['grep']);
    expect((await window({ event_types: ['qa', 'completion'] })).kinds).toEqual(['qa', 'completion']);
  });
});

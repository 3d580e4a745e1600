import type { EventStore } from '@larder/event-store';
import { eventBytes, LIMITS, Principal } from '@larder/kernel';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import type { RankedChunk } from './retrieval';
import {
  FLUSH_IDLE_MS,
  FLUSH_MAX_DELAY_MS,
  FLUSH_MAX_QUEUED,
  RECORDED_FILENAME_CHARS,
  RECORDED_RESULTS,
  SearchActivity,
  withinEventSize,
} from './search-activity';
import { eventResults, type SearchActivityEvent } from './events';

describe('SearchActivity: events appended at a pause in the searches', () => {
  let appends: Array<{ stream: string; types: string[] }>;
  let activity: SearchActivity;
  const event = (i: number) =>
    ({ type: 'StoreSearchPerformed', data: { apiKeyId: 'k', query: `q${i}` } }) as unknown as SearchActivityEvent;

  beforeEach(() => {
    jest.useFakeTimers();
    appends = [];
    const store = {
      appendToStream: async (stream: string, events: Array<{ type: string }>) => {
        appends.push({ stream, types: events.map((e) => e.type) });
      },
    } as unknown as EventStore;
    activity = new SearchActivity(store, { now: () => new Date() }, { uuid: () => 'id' } as never);
  });
  afterEach(() => jest.useRealTimers());

  const count = () => appends.reduce((n, a) => n + a.types.length, 0);

  it('appends a lone search FLUSH_IDLE_MS later, in one append per organization', async () => {
    activity.record('o1', event(1));
    activity.record('o2', event(2));
    await jest.advanceTimersByTimeAsync(FLUSH_IDLE_MS - 5);
    expect(appends).toEqual([]);
    await jest.advanceTimersByTimeAsync(10);
    expect(appends.map((a) => a.types.length)).toEqual([1, 1]);
    expect(appends.map((a) => a.stream)).toEqual([expect.stringContaining('o1'), expect.stringContaining('o2')]);
  });

  it('waits while searches keep coming, at most FLUSH_MAX_DELAY_MS after the oldest', async () => {
    let n = 0;
    for (let t = 0; t < FLUSH_MAX_DELAY_MS - 20; t += 10) {
      activity.record('o1', event(n++));
      await jest.advanceTimersByTimeAsync(10);
    }
    expect(appends).toEqual([]);
    for (let t = 0; t < 40; t += 10) {
      activity.record('o1', event(n++));
      await jest.advanceTimersByTimeAsync(10);
    }
    expect(appends).toHaveLength(1);
    expect(count()).toBeGreaterThan(90);
    // the rest at the next pause
    await jest.advanceTimersByTimeAsync(FLUSH_IDLE_MS + 5);
    expect(count()).toBe(n);
  });

  it('waits for searches under way (a slow one too), at most FLUSH_MAX_DELAY_MS after the oldest event', async () => {
    activity.record('o1', event(1));
    const ended = activity.searching();
    await jest.advanceTimersByTimeAsync(FLUSH_IDLE_MS * 3);
    expect(appends).toEqual([]);
    ended();
    ended(); // once only
    await jest.advanceTimersByTimeAsync(FLUSH_IDLE_MS - 5);
    expect(appends).toEqual([]);
    await jest.advanceTimersByTimeAsync(10);
    expect(count()).toBe(1);
    // a search that never ends does not hold the events back for good
    activity.searching();
    activity.record('o1', event(2));
    await jest.advanceTimersByTimeAsync(FLUSH_MAX_DELAY_MS - 5);
    expect(count()).toBe(1);
    await jest.advanceTimersByTimeAsync(10);
    expect(count()).toBe(2);
  });

  it('appends at once when FLUSH_MAX_QUEUED are queued, and flush() (shutdown) appends what is left', async () => {
    for (let i = 0; i < FLUSH_MAX_QUEUED; i++) activity.record('o1', event(i));
    await jest.advanceTimersByTimeAsync(0);
    expect(count()).toBe(FLUSH_MAX_QUEUED);
    activity.record('o1', event(-1));
    await activity.onApplicationShutdown();
    expect(count()).toBe(FLUSH_MAX_QUEUED + 1);
  });
});

describe('SearchActivity: every record fits in an event', () => {
  const common = (results: number, filename: string) => {
    const store = { appendToStream: async () => undefined } as unknown as EventStore;
    const activity = new SearchActivity(store, { now: () => new Date() }, { uuid: () => 'id' } as never);
    const chunks = Array.from(
      { length: results },
      (_, i) =>
        ({
          storeId: 's',
          fileId: `f${i}`,
          filename,
          chunkIndex: i,
          score: 1 - i / 1000,
          text: '',
        }) as unknown as RankedChunk,
    );
    return {
      activity,
      data: activity.common(
        { organizationId: 'o', apiKeyId: 'k' } as Principal,
        [{ id: 's' } as StoreRef],
        { rawFilters: null, topK: results },
        chunks,
        0,
      ),
    };
  };

  it('records a search over files with 15,000-character names at top_k 1,000 (names cut, 100 results kept)', () => {
    const { activity, data } = common(1000, 'n'.repeat(15_000));
    expect(data.results).toHaveLength(RECORDED_RESULTS);
    expect(eventResults(data.results, data.storeIds)[0].filename).toHaveLength(RECORDED_FILENAME_CHARS);
    const event = {
      type: 'StoreSearchPerformed',
      data: { ...data, query: 'q'.repeat(LIMITS.queryChars), rewrittenQuery: null, rerank: false },
    } as unknown as SearchActivityEvent;
    expect(() => activity.record('o', event)).not.toThrow();
    expect(eventBytes(event)).toBeLessThanOrEqual(LIMITS.eventBytes);
  });

  it('cuts a name on a character, never between the halves of a surrogate pair', () => {
    const { data } = common(1, 'a'.repeat(RECORDED_FILENAME_CHARS - 1) + '😀'.repeat(10));
    expect(eventResults(data.results, data.storeIds)[0].filename).toBe('a'.repeat(RECORDED_FILENAME_CHARS - 1));
  });

  it('halves the recorded results and tool calls of a record over the limit, keeping its usage', () => {
    const warn = jest.fn();
    const big = 'x'.repeat(20_000);
    const event = {
      type: 'StoreAgenticSearchPerformed',
      data: {
        organizationId: 'o',
        apiKeyId: 'k',
        results: Array.from({ length: 100 }, () => ({ filename: big })),
        toolCalls: Array.from({ length: 100 }, () => ({ arguments: { q: big } })),
        tokenUsage: { total_tokens: 7 },
      },
    } as unknown as SearchActivityEvent;
    const kept = withinEventSize(event, { warn });
    expect(eventBytes(kept)).toBeLessThanOrEqual(LIMITS.eventBytes);
    expect((kept.data as unknown as { results: unknown[] }).results.length).toBeGreaterThan(10);
    expect((kept.data as unknown as { tokenUsage: unknown }).tokenUsage).toEqual({ total_tokens: 7 });
    expect(warn).not.toHaveBeenCalled();
  });

  it('records a record over the limit cut down, and one within it as it is', async () => {
    const appended: Array<{ data: unknown; metadata?: unknown }> = [];
    const store = {
      appendToStream: async (_stream: string, events: Array<{ data: unknown; metadata?: unknown }>) => {
        appended.push(...events);
        return { nextRevision: 0, position: { commit: 0n, prepare: 0n } };
      },
    } as unknown as EventStore;
    const activity = new SearchActivity(store, { now: () => new Date() }, { uuid: () => 'id' } as never);
    const results = (n: number, name: string) => Array.from({ length: n }, () => ({ filename: name }));
    const event = (n: number, name: string) =>
      ({
        type: 'StoreGrepPerformed',
        data: { organizationId: 'o', apiKeyId: 'k', results: results(n, name), pattern: 'p' },
      }) as unknown as SearchActivityEvent;
    activity.record('o', event(100, 'x'.repeat(20_000)));
    activity.record('o', event(3, 'small'));
    await activity.flush();
    expect(appended).toHaveLength(2);
    expect(eventBytes(appended[0])).toBeLessThanOrEqual(LIMITS.eventBytes);
    expect((appended[0].data as { results: unknown[] }).results.length).toBeLessThan(100);
    expect((appended[1].data as { results: unknown[] }).results).toEqual(results(3, 'small'));
  });
});

describe('SearchActivity: results recorded as tuples, listed as objects', () => {
  const activity = new SearchActivity(
    { appendToStream: async () => undefined } as unknown as EventStore,
    { now: () => new Date() },
    { uuid: () => 'id' } as never,
  );
  const chunk = (storeId: string, i: number, firstStageSource: 'dense' | 'sparse' | 'both' | null) =>
    ({
      storeId,
      fileId: `f${i}`,
      filename: `file-${i}.md`,
      chunkIndex: i,
      score: 0.5 + i / 10,
      firstStagePosition: firstStageSource ? i + 1 : null,
      firstStageSource,
      text: 'not recorded',
    }) as unknown as RankedChunk;

  it('keeps each store as an index into storeIds (a store not among them by its id), and expands to the same objects', () => {
    const chunks = [chunk('b', 0, 'both'), chunk('a', 1, 'dense'), chunk('mixedbread/web', 2, null)];
    const data = activity.common(
      { organizationId: 'o', apiKeyId: 'k' } as Principal,
      [{ id: 'a' } as StoreRef, { id: 'b' } as StoreRef],
      { rawFilters: null, topK: 3 },
      chunks,
      0,
    );
    expect(data.results).toEqual([
      [1, 'f0', 'file-0.md', 0, 0.5, 1, 'both'],
      [0, 'f1', 'file-1.md', 1, 0.6, 2, 'dense'],
      ['mixedbread/web', 'f2', 'file-2.md', 2, 0.7, null, null],
    ]);
    expect(eventResults(data.results, data.storeIds)).toEqual(
      chunks.map((c) => ({
        store_id: c.storeId,
        file_id: c.fileId,
        filename: c.filename,
        chunk_index: c.chunkIndex,
        score: c.score,
        first_stage_position: c.firstStagePosition,
        first_stage_source: c.firstStageSource,
      })),
    );
  });

  it('lists the results of events recorded before the tuples as they were', () => {
    const old = [
      {
        store_id: 's',
        file_id: 'f',
        filename: 'a.md',
        chunk_index: 2,
        score: 0.25,
        first_stage_position: 3,
        first_stage_source: 'sparse' as const,
      },
    ];
    expect(eventResults(old, ['s'])).toEqual(old);
    expect(eventResults(undefined, ['s'])).toEqual([]);
  });
});

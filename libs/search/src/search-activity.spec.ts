import type { EventStore } from '@larder/event-store';
import { FLUSH_IDLE_MS, FLUSH_MAX_DELAY_MS, FLUSH_MAX_QUEUED, SearchActivity } from './search-activity';
import type { SearchActivityEvent } from './events';

describe('SearchActivity: events appended at a pause in the searches', () => {
  let appends: Array<{ stream: string; types: string[] }>;
  let activity: SearchActivity;
  const event = (i: number) => ({ type: 'StoreSearchPerformed', data: { apiKeyId: 'k', query: `q${i}` } }) as unknown as SearchActivityEvent;

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

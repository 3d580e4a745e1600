import type { ApiKeyWriter } from '../api-key.writer';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';

describe('ApiKeyUsageRecorder', () => {
  let now = 0;
  const recorded: string[] = [];
  const writer = {
    clock: { now: () => new Date(now) },
    decide: async (c: { apiKeyId: string }) => void recorded.push(c.apiKeyId),
  } as unknown as ApiKeyWriter;

  beforeEach(() => {
    now = 1_000_000;
    recorded.length = 0;
  });

  const key = (id: string) => ({ id, organizationId: 'org', lastActiveAt: null });

  it('records a key at most once per interval', async () => {
    const r = new ApiKeyUsageRecorder(writer);
    r.intervalMs = 1000;
    r.touch(key('a'));
    r.touch(key('a'));
    now += 999;
    r.touch(key('a'));
    now += 1;
    r.touch(key('a'));
    await r.flush();
    expect(recorded).toEqual(['a', 'a']);
  });

  it('remembers only the keys recorded within the interval', async () => {
    const r = new ApiKeyUsageRecorder(writer);
    r.intervalMs = 1000;
    for (let i = 0; i < 100; i++) r.touch(key(`k${i}`));
    expect(r.remembered).toBe(100);
    now += 500;
    r.touch(key('late'));
    expect(r.remembered).toBe(101);
    now += 500;
    r.touch(key('k0'));
    // the 99 others aged out; `late` (500 ms old) and `k0` (just recorded) remain
    expect(r.remembered).toBe(2);
    await r.flush();
    expect(recorded).toHaveLength(102);
  });
});

import fc from 'fast-check';
import { RetryPolicy, isRetryableStatus, retryAfterMs } from './retry';

const options = fc.record({
  baseMs: fc.integer({ min: 0, max: 5_000 }),
  maxDelayMs: fc.integer({ min: 0, max: 60_000 }),
  maxRetries: fc.integer({ min: 0, max: 8 }),
});

describe('RetryPolicy.delayMs', () => {
  it('grows with each retry until the cap, and never passes it', () => {
    fc.assert(
      fc.property(options, fc.double({ min: 0, max: 0.999_999, noNaN: true }), (o, r) => {
        const policy = new RetryPolicy({ ...o, random: () => r });
        const delays = Array.from({ length: 12 }, (_, n) => policy.delayMs(n));
        for (const [n, d] of delays.entries()) {
          expect(d).toBeLessThanOrEqual(o.maxDelayMs);
          expect(d).toBeGreaterThanOrEqual(Math.min(o.maxDelayMs, o.baseMs * 2 ** n) / 2);
          if (n > 0) expect(d).toBeGreaterThanOrEqual(delays[n - 1]);
        }
      }),
    );
  });

  it('jitters the upper half of the back-off', () => {
    const at = (r: number) =>
      new RetryPolicy({ maxRetries: 3, baseMs: 400, maxDelayMs: 10_000, random: () => r }).delayMs(2);
    expect(at(0)).toBe(800);
    expect(at(0.5)).toBe(1200);
    expect(at(0.999)).toBeCloseTo(1599.2);
  });

  it('honours a Retry-After, cut to its cap', () => {
    fc.assert(
      fc.property(options, fc.integer({ min: 0, max: 7_200_000 }), fc.integer({ min: 0, max: 8 }), (o, after, n) => {
        const policy = new RetryPolicy(o);
        expect(policy.delayMs(n, after)).toBe(Math.min(after, o.maxDelayMs));
        expect(new RetryPolicy({ ...o, maxRetryAfterMs: 3_600_000 }).delayMs(n, after)).toBe(
          Math.min(after, 3_600_000),
        );
      }),
    );
  });
});

describe('RetryPolicy.retries', () => {
  it('retries 408, 429 and 5xx, never another 4xx, a 2xx or a 3xx', () => {
    const policy = new RetryPolicy({ maxRetries: 2, baseMs: 1, maxDelayMs: 1 });
    for (let status = 200; status < 600; status++)
      expect(policy.retries(status)).toBe(status === 408 || status === 429 || status >= 500);
    expect(isRetryableStatus(404)).toBe(false);
  });

  it('takes a caller’s narrower set of statuses', () => {
    const policy = new RetryPolicy({ maxRetries: 2, baseMs: 1, maxDelayMs: 1, retryStatus: (s) => s >= 500 });
    expect([429, 408, 500, 503].map((s) => policy.retries(s))).toEqual([false, false, true, true]);
  });
});

describe('RetryPolicy.run', () => {
  const failing = () => ({ retry: new Error('boom') });

  it('makes 1 + maxRetries attempts, then throws the last failure through gaveUp', async () => {
    const policy = new RetryPolicy({ maxRetries: 3, baseMs: 1, maxDelayMs: 2 });
    let attempts = 0;
    const error = await policy
      .run(async () => (attempts++, failing()), { gaveUp: (last, n) => new Error(`${last.message} after ${n}`) })
      .catch((e: Error) => e);
    expect(attempts).toBe(4);
    expect(error).toEqual(new Error('boom after 4'));
  });

  it('answers the first value and does not retry what an attempt throws', async () => {
    const policy = new RetryPolicy({ maxRetries: 3, baseMs: 1, maxDelayMs: 2 });
    let n = 0;
    await expect(policy.run(async (i) => (n++, i < 2 ? failing() : { value: i }))).resolves.toBe(2);
    expect(n).toBe(3);
    n = 0;
    await expect(policy.run(async () => (n++, Promise.reject(new Error('final'))))).rejects.toThrow('final');
    expect(n).toBe(1);
  });

  it('does not start a wait that would end past the deadline', async () => {
    const policy = new RetryPolicy({ maxRetries: 5, baseMs: 60_000, maxDelayMs: 60_000 });
    let attempts = 0;
    const started = Date.now();
    await expect(policy.run(async () => (attempts++, failing()), { deadline: Date.now() + 1_000 })).rejects.toThrow(
      'boom',
    );
    expect(attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('waits as long as the Retry-After says', async () => {
    const policy = new RetryPolicy({ maxRetries: 1, baseMs: 0, maxDelayMs: 1_000 });
    const started = Date.now();
    await policy.run(async (n) => (n === 0 ? { retry: new Error('busy'), retryAfterMs: 150 } : { value: null }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('ends a wait when the signal aborts, with its reason', async () => {
    const policy = new RetryPolicy({ maxRetries: 1, baseMs: 60_000, maxDelayMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(policy.run(async () => failing(), { signal: controller.signal })).rejects.toThrow('stop');
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['0', 0],
    ['2', 2000],
    ['1.5', 1500],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['-1', null],
    ['soon', null],
    ['', null],
  ])('%j is %j ms', (header, ms) => expect(retryAfterMs(header, now)).toBe(ms));

  it('reads the first of repeated headers, and nothing from none', () => {
    expect(retryAfterMs(['3', '9'], now)).toBe(3000);
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});

/** Whether an answered status may succeed on a later try: 408, 429 and every 5xx. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The wait before retry n (from 0) is base · 2ⁿ, its upper half jittered. */
  baseMs: number;
  /** Longest wait before a retry from the back-off. */
  maxDelayMs: number;
  /** Longest `Retry-After` honoured; a longer one is cut to it. Default `maxDelayMs`. */
  maxRetryAfterMs?: number;
  /** Which answered statuses are retried. Default `isRetryableStatus`. */
  retryStatus?: (status: number) => boolean;
  /** Jitter source in [0, 1); `Math.random` unless a test wants it fixed. */
  random?: () => number;
}

/**
 * The one retry policy of every call Larder makes to another service: a bounded number of retries of
 * network failures and of 408/429/5xx answers (each caller may narrow the statuses), exponential
 * back-off with jitter, a `Retry-After` honoured up to a cap, and no retry that would end past the
 * call's deadline.
 */
export class RetryPolicy {
  readonly maxRetries: number;
  private readonly baseMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly retryStatus: (status: number) => boolean;
  private readonly random: () => number;

  constructor(options: RetryOptions) {
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries));
    this.baseMs = Math.max(0, options.baseMs);
    this.maxDelayMs = Math.max(0, options.maxDelayMs);
    this.maxRetryAfterMs = Math.max(0, options.maxRetryAfterMs ?? this.maxDelayMs);
    this.retryStatus = options.retryStatus ?? isRetryableStatus;
    this.random = options.random ?? Math.random;
  }

  /** Whether an answer with this status is worth another try. */
  retries(status: number): boolean {
    return this.retryStatus(status);
  }

  /** The wait before retry `retry` (from 0): the server's `Retry-After` when it gave one, else the back-off; both capped. */
  delayMs(retry: number, retryAfterMs: number | null = null): number {
    if (retryAfterMs !== null) return Math.min(this.maxRetryAfterMs, Math.max(0, retryAfterMs));
    const exponential = Math.min(this.maxDelayMs, this.baseMs * 2 ** retry);
    return exponential / 2 + (this.random() * exponential) / 2;
  }

  /**
   * Runs `attempt` until it gives a value. An attempt that answers `{ retry }` is tried again after
   * the wait while retries are left and the wait ends before `deadline` (epoch ms); then `retry` is
   * thrown, through `gaveUp` when more than one attempt was made. What `attempt` throws is final.
   * A wait is cut short by `signal`, rejecting with its reason.
   */
  async run<T>(attempt: (n: number) => Promise<Attempt<T>>, options: RunOptions = {}): Promise<T> {
    for (let n = 0; ; n++) {
      const outcome = await attempt(n);
      if ('value' in outcome) return outcome.value;
      const delay = n < this.maxRetries ? this.delayMs(n, outcome.retryAfterMs ?? null) : null;
      if (delay === null || (options.deadline !== undefined && Date.now() + delay >= options.deadline)) {
        throw n > 0 && options.gaveUp ? options.gaveUp(outcome.retry, n + 1) : outcome.retry;
      }
      await sleep(delay, options.signal);
    }
  }
}

/** One attempt's outcome: a value, or a failure worth another try (with the server's `Retry-After`, if any). */
export type Attempt<T> = { value: T } | { retry: Error; retryAfterMs?: number | null };

export interface RunOptions {
  /** Epoch ms past which no retry starts. */
  deadline?: number;
  signal?: AbortSignal;
  /** The error thrown after several attempts failed, from the last one's. */
  gaveUp?: (last: Error, attempts: number) => Error;
}

/** ` (gave up after n attempts)`, for messages of calls that were retried. */
export const gaveUpNote = (attempts: number): string => ` (gave up after ${attempts} attempts)`;

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (a date past is 0); null when absent
 * or unreadable.
 */
export function retryAfterMs(header: string | string[] | null | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === null || value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Waits `ms`; rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

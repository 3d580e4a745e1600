import { AsyncLocalStorage } from 'async_hooks';

/** Milliseconds per named step of one request, in the order the steps first reported. */
export type Timings = Record<string, number>;

const scope = new AsyncLocalStorage<Timings>();

/**
 * Runs `fn` (the rest of an HTTP request, or a test) in a fresh timing scope: the steps it times with
 * `timed` / `addTiming` are collected there and read back with `timings()`.
 */
export function withTimings<T>(fn: () => T): T {
  return scope.run({}, fn);
}

/** Adds `ms` to the step `name` of the current request (a step that runs more than once sums). Outside a scope it does nothing. */
export function addTiming(name: string, ms: number): void {
  const t = scope.getStore();
  if (t) t[name] = (t[name] ?? 0) + ms;
}

/** Runs `fn` and adds its duration, failed or not, to the step `name`. */
export async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    addTiming(name, performance.now() - t);
  }
}

/** The current request's steps so far (empty outside a scope). */
export function timings(): Timings {
  return scope.getStore() ?? {};
}

/** `Server-Timing` header value of a timing record (`embed;dur=3.20, search;dur=9.81`). */
export const serverTiming = (t: Timings): string =>
  Object.entries(t)
    .map(([k, v]) => `${k};dur=${v.toFixed(2)}`)
    .join(', ');

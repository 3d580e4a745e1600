import { readFileSync } from 'fs';
import { Agent, request } from 'http';
import { createServer } from 'net';

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Waits until the server at `base` answers `GET /` (100 ms steps, at most `seconds`). */
export async function waitForServer(base: string, seconds = 60): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/`)).ok) return;
    } catch {
      if (i > seconds * 10) throw new Error('server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One API call over a kept-alive node:http agent (the numbers are the server's, not a client
 * library's): the key as a bearer token, the body as given, the answer's status and text.
 */
export function apiCall(
  agent: Agent,
  base: string,
  key: string,
  method: string,
  path: string,
  body?: Buffer,
  type = 'application/json',
  timeoutMs = 60_000,
): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': type, 'content-length': body.length } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A `Server-Timing` header as step → milliseconds (`embed;dur=3.20, search;dur=9.81`). */
export function parseServerTiming(header: string | string[] | null | undefined): Record<string, number> {
  const text = Array.isArray(header) ? header.join(', ') : (header ?? '');
  return Object.fromEntries(
    text
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map((x) => [x.split(';')[0], Number(/dur=([\d.]+)/.exec(x)?.[1] ?? NaN)]),
  );
}

/**
 * What a search request spent waiting on the query's embedding, the index and a reranker, from its
 * `Server-Timing` steps: `embed_wait` (the embedding still running once the stores and rules were
 * looked up), `dense` (the dense search, on the event loop), `lexical_wait` (the lexical search, in
 * the read worker, still running once the dense one was done) and `rerank`. These are the steps on the
 * request's critical path that are not the API's own work; the embedding and lexical time that
 * overlaps other work is not on it.
 */
export const waitedMs = (steps: Record<string, number>): number => (steps.embed_wait ?? 0) + (steps.dense ?? 0) + (steps.lexical_wait ?? 0) + (steps.rerank ?? 0);

/**
 * The API's own time of one search request: `total` (the server's time on it, from its first
 * middleware to its JSON body written out) less `waitedMs`; and, with the client's time, the
 * endpoint's time less the same waits (the server's own time plus the transport and the client).
 */
export function ownTime(steps: Record<string, number>, clientMs?: number): { server: number; endpoint: number } {
  const waited = waitedMs(steps);
  return { server: (steps.total ?? NaN) - waited, endpoint: clientMs === undefined ? NaN : clientMs - waited };
}

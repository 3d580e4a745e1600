import * as http from 'http';
import * as https from 'https';
import { OutboundPolicy, OutboundRefusedError, redactUrl } from './outbound-policy';

export interface OutboundRequest {
  method?: string;
  /**
   * Sent to the target's origin only (they may hold configured headers and keys): a redirect to
   * another origin carries none of them, but for `content-type` when the body goes along.
   */
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array;
  /** The whole exchange, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Response bodies beyond this are refused (default 1 MiB). */
  maxBytes?: number;
  /** Redirects followed, each re-checked (default 0: a redirect is answered as it is). */
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects), without credentials or query. */
  url: string;
}

/** Why an outbound call failed: refused by the policy, timed out, too large, or a network error. */
export class OutboundFailure extends Error {
  constructor(
    readonly kind: 'refused' | 'timeout' | 'too_large' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundFailure';
  }
}

const agents = new WeakMap<OutboundPolicy, { 'http:': http.Agent; 'https:': https.Agent }>();

/** The policy's shared, guarded keep-alive agents. */
export function guardedAgents(policy: OutboundPolicy): { 'http:': http.Agent; 'https:': https.Agent } {
  let pair = agents.get(policy);
  if (!pair) {
    pair = { 'http:': policy.agent('http:'), 'https:': policy.agent('https:') as https.Agent };
    agents.set(policy, pair);
  }
  return pair;
}

/**
 * One HTTP exchange with a user-supplied URL under the outbound policy: checked before and at
 * connection time, every redirect re-checked (and the caller's headers dropped when it changes
 * origin), a deadline over the whole exchange and a cap on the body read.
 */
export async function outboundFetch(
  policy: OutboundPolicy,
  target: string,
  request: OutboundRequest = {},
): Promise<OutboundResponse> {
  const timeoutMs = request.timeoutMs ?? 10_000;
  const maxBytes = request.maxBytes ?? 1 << 20;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  let url = await policy.check(target).catch((err: unknown) => {
    throw err instanceof OutboundRefusedError ? new OutboundFailure('refused', err.message) : err;
  });
  let method = (request.method ?? 'GET').toUpperCase();
  let body = request.body;
  let headers = { ...(request.headers ?? {}) };
  for (let hop = 0; ; hop++) {
    const response = await exchange(policy, url, method, headers, body, maxBytes, signal, timeoutMs);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location && hop < (request.maxRedirects ?? 0)) {
      const next = new URL(location, url);
      try {
        await policy.check(next.href);
      } catch (err) {
        throw err instanceof OutboundRefusedError
          ? new OutboundFailure('refused', `redirected to ${err.message}`)
          : err;
      }
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      if (next.origin !== url.origin)
        headers = Object.fromEntries(
          Object.entries(headers).filter(([k]) => body !== undefined && k.toLowerCase() === 'content-type'),
        );
      url = next;
      continue;
    }
    return response;
  }
}

function exchange(
  policy: OutboundPolicy,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | Uint8Array | undefined,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<OutboundResponse> {
  const where = redactUrl(url);
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      { method, headers, agent: guardedAgents(policy)[url.protocol as 'http:' | 'https:'], signal },
      (res) => {
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (declared > maxBytes) {
          res.destroy();
          return reject(
            new OutboundFailure('too_large', `${where} answered ${declared} bytes; the limit is ${maxBytes}`),
          );
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new OutboundFailure('too_large', `${where} answered more than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: where }),
        );
        res.on('error', (err) => reject(failure(err, where, signal, timeoutMs)));
      },
    );
    req.on('error', (err) => reject(failure(err, where, signal, timeoutMs)));
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

function failure(err: Error, where: string, signal: AbortSignal, timeoutMs: number): OutboundFailure {
  if (err instanceof OutboundRefusedError || (err as { cause?: unknown }).cause instanceof OutboundRefusedError) {
    const refused = err instanceof OutboundRefusedError ? err : (err as { cause: OutboundRefusedError }).cause;
    return new OutboundFailure('refused', refused.message);
  }
  if (signal.aborted) return new OutboundFailure('timeout', `${where} did not answer within ${timeoutMs} ms`);
  const code = (err as NodeJS.ErrnoException).code;
  return new OutboundFailure('network', `${where} could not be reached (${code ?? err.message})`);
}

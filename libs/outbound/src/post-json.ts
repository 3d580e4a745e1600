import * as http from 'http';
import * as https from 'https';
import { retryAfterMs } from './retry';

/** An answer read whole: its status, its body as text and its `Retry-After` in ms (null when none). */
export interface JsonAnswer {
  status: number;
  body: string;
  retryAfterMs: number | null;
}

/** A kept-alive agent for the URL's scheme (close it with `destroy()` when its client closes). */
export function keepAliveAgent(url: URL): http.Agent {
  return url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
}

/**
 * POSTs a body (JSON, or a multipart form such as an audio upload) to an operator-configured service
 * (embedder, reranker, transcriber) over a kept-alive connection (node:http: these calls are on
 * search's critical path). The answer is read up to `maxBytes`, the
 * whole exchange up to `timeoutMs`; it rejects with a plain Error saying why on a network failure.
 */
export function postJson(
  url: URL,
  headers: Record<string, string>,
  body: string | Buffer,
  agent: http.Agent,
  timeoutMs: number,
  maxBytes = Infinity,
): Promise<JsonAnswer> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        let tooLarge = false;
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (tooLarge) return;
          if (size <= maxBytes) return parts.push(d);
          tooLarge = true;
          reject(new Error(`answer larger than ${maxBytes} bytes`));
          req.destroy();
        });
        res.on('end', () => {
          if (tooLarge) return;
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            retryAfterMs: retryAfterMs(res.headers['retry-after']),
          });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(body);
  });
}

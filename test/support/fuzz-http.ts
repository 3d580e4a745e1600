import { Agent, request } from 'http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * One HTTP/1.1 request with exactly this path, these headers and these body bytes (a valid
 * Content-Length; no normalization of the path, unlike fetch). Rejects when no answer comes.
 */
export function send(
  baseURL: string,
  r: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
  timeoutMs = 60_000,
): Promise<RawResponse> {
  const url = new URL(baseURL);
  const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: r.path,
        method: r.method,
        agent,
        headers: { ...r.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: Date.now() - t0,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** JSON through `send`, for the fixture; throws on a status other than the expected ones. */
export async function sendJson<T = Record<string, unknown>>(
  baseURL: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  expect: number[] = [200, 201],
): Promise<T> {
  const res = await send(baseURL, {
    method,
    path,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!expect.includes(res.status))
    throw new Error(`${method} ${path} answered ${res.status}: ${res.body.slice(0, 500)}`);
  return (res.body ? JSON.parse(res.body) : {}) as T;
}

export function closeAgent(): void {
  agent.destroy();
}

const isStr = (x: unknown): x is string => typeof x === 'string';

/**
 * Why an error answer does not have the contract's shape, or null when it has (or is not an error):
 * 422 → `{detail: [{loc, msg, type}], message}`; any other 4xx/5xx → `{error: {message, code, type}, message}`.
 */
export function contractViolation(res: RawResponse): string | null {
  if (res.status < 400) return null;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `error body is not JSON: ${JSON.stringify(res.body.slice(0, 200))}`;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'error body is not an object';
  const b = body as Record<string, unknown>;
  if (!isStr(b.message)) return 'error body has no string `message`';
  if (res.status === 422) {
    if (!Array.isArray(b.detail) || !b.detail.length) return '422 without a non-empty `detail` list';
    for (const d of b.detail as unknown[]) {
      const e = d as Record<string, unknown>;
      if (
        !e ||
        typeof e !== 'object' ||
        !Array.isArray(e.loc) ||
        !e.loc.length ||
        !e.loc.every((l) => isStr(l) || typeof l === 'number') ||
        !isStr(e.msg) ||
        !isStr(e.type)
      )
        return `422 detail entry without {loc, msg, type}: ${JSON.stringify(d).slice(0, 200)}`;
    }
    return null;
  }
  const e = b.error as Record<string, unknown> | undefined;
  if (!e || typeof e !== 'object' || !isStr(e.message) || e.code !== res.status || !isStr(e.type))
    return `error body without {error: {message, code: ${res.status}, type}}: ${res.body.slice(0, 200)}`;
  return null;
}

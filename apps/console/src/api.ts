/**
 * The console's HTTP client: the same public API the official client uses, on the same origin. The key
 * travels only in the Authorization header (never in a URL); a 401 ends the session.
 */

export type Query = Record<string, string | number | boolean | null | undefined | Array<string | number>>;

/** An answer of the API that was not 2xx, with the message taken from the contract's error bodies. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** One line per invalid input of a 422 (`loc: msg`). */
    readonly details: string[] = [],
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

interface ValidationIssue {
  loc?: Array<string | number>;
  msg?: string;
}

/** Reads `{error: {message, code, type}, message}` or `{detail: [{loc, msg, type}]}` (422) into an ApiError. */
export function apiError(status: number, body: unknown, fallback: string): ApiError {
  const b = (body ?? {}) as {
    message?: unknown;
    error?: { message?: unknown; code?: unknown; type?: unknown };
    detail?: unknown;
  };
  const details = Array.isArray(b.detail)
    ? (b.detail as ValidationIssue[]).map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? 'invalid'}`)
    : typeof b.detail === 'string'
      ? [b.detail]
      : [];
  const message =
    typeof b.message === 'string' && b.message
      ? b.message
      : typeof b.error?.message === 'string'
        ? b.error.message
        : details.length
          ? 'The request is invalid.'
          : fallback;
  const code =
    typeof b.error?.type === 'string' ? b.error.type : typeof b.error?.code === 'string' ? b.error.code : null;
  return new ApiError(status, message, details, code);
}

export function queryString(q: Query | undefined): string {
  if (!q) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) p.append(k, String(x));
    else p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** `segment` of a path, percent-encoded (a store named `a.b` or an id). */
export const seg = (s: string) => encodeURIComponent(s);

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export class Api {
  constructor(
    private readonly key: string,
    private readonly onUnauthorized: (message: string) => void,
  ) {}

  /** The answer as a Response (for headers and streams); a non-2xx answer throws its ApiError. */
  async raw(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.key}`,
      accept: 'application/json',
      ...o.headers,
    };
    let body: BodyInit | undefined;
    if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    let res: Response;
    try {
      res = await fetch(`${path}${queryString(o.query)}`, {
        method,
        headers,
        body,
        signal: o.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (err) {
      if ((err as Error)?.name === 'AbortError') throw err;
      throw new ApiError(0, 'The server could not be reached.');
    }
    if (res.ok) return res;
    const parsed: unknown = await res.json().catch(() => null);
    const error = apiError(res.status, parsed, `${res.status} ${res.statusText}`);
    if (res.status === 401) this.onUnauthorized(error.message);
    throw error;
  }

  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, o);
    const text = await res.text();
    return (text ? JSON.parse(text) : null) as T;
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, { query, signal });
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, { body });
  }

  /**
   * A multipart POST through XMLHttpRequest, the only browser API that reports upload progress.
   * `onProgress` receives bytes sent so far.
   */
  upload<T>(path: string, form: FormData, onProgress: (sent: number) => void, signal?: AbortSignal): Promise<T> {
    return xhr<T>(
      'POST',
      path,
      form,
      { authorization: `Bearer ${this.key}`, accept: 'application/json' },
      onProgress,
      signal,
    ).then(({ status, body }) => {
      if (status >= 200 && status < 300) return body as T;
      const error = apiError(status, body, `${status} upload failed`);
      if (status === 401) this.onUnauthorized(error.message);
      throw error;
    });
  }
}

/**
 * PUTs one part of a multipart upload to its presigned URL (no API key: the URL's signature is the
 * authority) and returns the ETag the storage answered, which `complete` needs exactly as received.
 */
export async function putPart(
  url: string,
  part: Blob,
  onProgress: (sent: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const { status, body, etag } = await xhr<unknown>('PUT', url, part, {}, onProgress, signal);
  if (status < 200 || status >= 300) throw apiError(status, body, `part upload failed (${status})`);
  if (!etag)
    throw new ApiError(
      status,
      'The storage answered a part without an ETag header (for S3, expose ETag in the bucket CORS rules).',
    );
  return etag;
}

function xhr<T>(
  method: string,
  url: string,
  body: XMLHttpRequestBodyInit,
  headers: Record<string, string>,
  onProgress: (sent: number) => void,
  signal?: AbortSignal,
): Promise<{ status: number; body: T | null; etag: string | null }> {
  return new Promise((resolve, reject) => {
    const req = new XMLHttpRequest();
    req.open(method, url);
    for (const [k, v] of Object.entries(headers)) req.setRequestHeader(k, v);
    req.upload.onprogress = (e) => onProgress(e.loaded);
    req.onload = () => {
      let parsed: T | null;
      try {
        parsed = req.responseText ? (JSON.parse(req.responseText) as T) : null;
      } catch {
        parsed = null;
      }
      resolve({ status: req.status, body: parsed, etag: req.getResponseHeader('etag') });
    };
    req.onerror = () => reject(new ApiError(0, 'The upload was interrupted (network error).'));
    req.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    signal?.addEventListener('abort', () => req.abort(), { once: true });
    req.send(body);
  });
}

/** A `Server-Timing` header as steps with milliseconds (`embed;dur=3.20, search;dur=9.81`). */
export function parseServerTiming(header: string | null): Array<{ name: string; dur: number; desc?: string }> {
  if (!header) return [];
  return header
    .split(',')
    .map((entry) => {
      const [name, ...params] = entry.trim().split(';');
      let dur = 0;
      let desc: string | undefined;
      for (const p of params) {
        const [k, v = ''] = p.trim().split('=');
        if (k === 'dur') dur = Number(v) || 0;
        if (k === 'desc') desc = v.replace(/^"|"$/g, '');
      }
      return { name: name.trim(), dur, desc };
    })
    .filter((t) => t.name);
}

/** Server-sent events of a streamed answer, as `{event, data}` records, until `[DONE]`. */
export async function* readEvents(res: Response): AsyncGenerator<{ event: string; data: string }> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut: number;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length === 0) continue;
      yield { event, data: data.join('\n') };
    }
  }
}

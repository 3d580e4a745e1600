import { Attempt, RetryPolicy, gaveUpNote } from '@larder/outbound';
import { WebSearchProviderError } from './web-search.port';

/** Provider calls retry a 5xx or a network failure only (a 429 is the account's limit, not a passing state), soon. */
const PROVIDER_RETRY = { baseMs: 100, maxDelayMs: 1_000, retryStatus: (status: number) => status >= 500 };

export interface OutboundJsonOptions {
  /** The provider's name, for errors. */
  provider: string;
  headers?: Record<string, string>;
  /** The whole call, the retry included: past it the call fails as `timeout`. */
  timeoutMs: number;
  /** Largest answer read; beyond, the request is aborted and fails as `too_large`. */
  maxBytes: number;
  /** Retries of a 5xx or a network failure (never of a timeout or a 4xx). */
  retries: number;
  signal?: AbortSignal;
  /** Values (API keys) that must never appear in an error message: replaced by `[redacted]` wherever they do. */
  secrets?: Array<string | null>;
}

/**
 * `GET url` expecting JSON, with the outbound limits every web search provider call has: one deadline
 * for the whole call, at most `retries` retries of a 5xx or a network failure while time remains
 * (under the shared retry policy: a short jittered back-off, no wait past the deadline), a
 * cap on the bytes read (the body is read as a stream and the request aborted beyond it), redirects
 * refused, and the answer parsed as JSON (anything else is `bad_response`). Error messages name the
 * provider and what went wrong, never a key, and never the upstream's body.
 */
export async function getJson(url: URL, o: OutboundJsonOptions): Promise<unknown> {
  const fail = (
    kind: ConstructorParameters<typeof WebSearchProviderError>[1],
    message: string,
    status: number | null = null,
  ) => new WebSearchProviderError(o.provider, kind, redact(message, o.secrets), status);
  const startedAt = Date.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('deadline')), o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([deadline.signal, o.signal]) : deadline.signal;
  const aborted = () => {
    if (o.signal?.aborted) return o.signal.reason as Error;
    if (deadline.signal.aborted) return fail('timeout', `${o.provider} did not answer within ${o.timeoutMs} ms`);
    return null;
  };
  const policy = new RetryPolicy({ ...PROVIDER_RETRY, maxRetries: o.retries });
  const attempt = async (): Promise<Attempt<unknown>> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'GET',
        headers: { accept: 'application/json', ...o.headers },
        signal,
        redirect: 'manual',
      });
    } catch (err) {
      const a = aborted();
      if (a) throw a;
      return { retry: fail('unavailable', `${o.provider} is unreachable: ${causeOf(err)}`) };
    }
    if (policy.retries(res.status)) {
      await res.body?.cancel().catch(() => undefined);
      return { retry: fail('unavailable', `${o.provider} answered ${res.status}`, res.status) };
    }
    if (res.status < 200 || res.status >= 300) {
      await res.body?.cancel().catch(() => undefined);
      const why =
        res.status >= 300 && res.status < 400
          ? ', a redirect: configure the address it redirects to'
          : res.status === 401 || res.status === 403
            ? ' (check its key or its settings)'
            : '';
      throw fail('refused', `${o.provider} refused the search (${res.status})${why}`, res.status);
    }
    let text: string;
    try {
      text = await readCapped(res, o.maxBytes);
    } catch (err) {
      const a = aborted();
      if (a) throw a;
      if (err instanceof TooLarge)
        throw fail(
          'too_large',
          `${o.provider} answered more than ${o.maxBytes} bytes; the answer was cut off and ignored`,
        );
      throw fail('unavailable', `${o.provider} broke off its answer: ${causeOf(err)}`);
    }
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      throw fail('bad_response', `${o.provider} answered something that is not JSON`);
    }
  };
  const gaveUp = (last: Error, attempts: number) =>
    last instanceof WebSearchProviderError
      ? new WebSearchProviderError(o.provider, last.kind, `${last.message}${gaveUpNote(attempts)}`, last.upstreamStatus)
      : last;
  try {
    return await policy.run(attempt, { signal, gaveUp, deadline: startedAt + o.timeoutMs });
  } catch (err) {
    throw aborted() ?? err;
  } finally {
    clearTimeout(timer);
  }
}

class TooLarge extends Error {}

/** The body as UTF-8 text, reading at most `maxBytes` (then the stream is cancelled, which closes the request). */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLarge();
  }
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

const causeOf = (err: unknown): string => {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'network error';
};

/** `text` with every non-empty secret replaced. */
export function redact(text: string, secrets: Array<string | null> = []): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}

/** Plain text of a provider's HTML-ish snippet: tags removed, the common entities decoded, whitespace collapsed. */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|#39|nbsp);/gi, (_, e: string) => {
      const lower = e.toLowerCase();
      if (lower.startsWith('#')) {
        const n = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
        return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
      }
      return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' } as Record<string, string>)[lower] ?? '';
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** A web search query as sent to providers: whitespace collapsed, cut at a word boundary to `max` characters. */
export function webQuery(query: string, max = 400): string {
  const q = query.replace(/\s+/g, ' ').trim();
  if (q.length <= max) return q;
  const cut = q.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** Whether `v` is an http(s) URL (what a result must link to). */
export const isHttpUrl = (v: unknown): v is string =>
  typeof v === 'string' && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);

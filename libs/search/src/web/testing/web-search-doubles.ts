import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';

/**
 * Local stand-ins for web search providers, speaking their real JSON wire formats over node:http:
 * - SearXNG: `GET /search?q=…&format=json` → `{query, number_of_results, results: [{url, title,
 *   content, engine, engines, score, category, publishedDate, parsed_url, positions}], answers,
 *   corrections, infoboxes, suggestions, unresponsive_engines}`; 403 unless `format=json` (as an
 *   instance without the json format enabled answers).
 * - Brave Search API: `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token` →
 *   `{type: "search", query: {original, …}, mixed, web: {type: "search", family_friendly, results:
 *   [{type: "search_result", title, url, description, page_age, age, language, profile, meta_url,
 *   extra_snippets}]}}`; a missing or wrong token gets Brave's 422/401 `ErrorResponse`.
 *
 * Pages come from a corpus given at start: a page matches a query when they share a word (case
 * folded), best matches first. What a request gets can be scripted with `reply(...)` (taken one per
 * request): an error status, a hang (never answers; the connection stays open), a dropped connection,
 * an oversized body, raw bytes (malformed JSON). Every request is recorded.
 */
export interface WebPage {
  url: string;
  title: string;
  /** SearXNG's `content`, Brave's `description` (may hold `<strong>` highlights). */
  snippet: string;
  published?: string;
  extraSnippets?: string[];
}

export type WebReply =
  | { kind: 'results'; pages?: WebPage[] }
  | { kind: 'error'; status: number }
  | { kind: 'hang' }
  | { kind: 'drop' }
  /** A valid JSON answer padded past `bytes` (declared in Content-Length, or `chunked: true` without one). */
  | { kind: 'oversized'; bytes: number; chunked?: boolean }
  | { kind: 'raw'; status?: number; body: string; contentType?: string };

export interface WebSearchDouble {
  /** SearXNG: the instance's base URL. Brave: the API's base URL up to `/web/search` (`…/res/v1`). */
  url: string;
  requests: Array<{
    path: string;
    query: URLSearchParams;
    headers: IncomingHttpHeaders;
    closed: Promise<'completed' | 'aborted'>;
  }>;
  reply(...replies: WebReply[]): void;
  /** Replies of requests that find the queue empty (default: the corpus's matches). */
  handle(fallback: WebReply | null): void;
  close(): Promise<void>;
}

const matches = (pages: WebPage[], q: string) => {
  const terms = new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  return pages
    .map((p) => ({
      p,
      n: (`${p.title} ${p.snippet}`.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => terms.has(w)).length,
    }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n)
    .map((x) => x.p);
};

async function startDouble(
  kind: 'searxng' | 'brave',
  corpus: WebPage[],
  apiKey: string | null,
): Promise<WebSearchDouble> {
  const queue: WebReply[] = [];
  let fallback: WebReply | null = null;
  const requests: WebSearchDouble['requests'] = [];
  const sockets = new Set<import('net').Socket>();
  const server: Server = createServer((req, res) => {
    let closedAs: (how: 'completed' | 'aborted') => void = () => undefined;
    const closed = new Promise<'completed' | 'aborted'>((resolve) => (closedAs = resolve));
    res.on('close', () => closedAs(res.writableFinished ? 'completed' : 'aborted'));
    const url = new URL(req.url ?? '/', 'http://double');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers, closed });
    const path = kind === 'searxng' ? '/search' : '/res/v1/web/search';
    if (req.method !== 'GET' || url.pathname !== path)
      return json(res, 404, kind === 'brave' ? braveError(404, 'NOT_FOUND', 'Not found') : { error: 'not found' });
    if (kind === 'searxng' && url.searchParams.get('format') !== 'json')
      return json(res, 403, { error: 'format not allowed' });
    if (kind === 'brave') {
      const token = req.headers['x-subscription-token'];
      if (!token) return json(res, 422, braveError(422, 'VALIDATION', 'Unable to validate request parameter(s)'));
      if (apiKey && token !== apiKey)
        return json(
          res,
          401,
          braveError(401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.'),
        );
    }
    const q = url.searchParams.get('q') ?? '';
    const reply = queue.shift() ?? fallback ?? { kind: 'results' };
    switch (reply.kind) {
      case 'hang':
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'error':
        return json(
          res,
          reply.status,
          kind === 'brave' ? braveError(reply.status, 'ERROR', 'Upstream error') : { error: 'error' },
        );
      case 'raw':
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
        res.end(reply.body);
        return;
      case 'oversized': {
        const base = JSON.stringify(answer(kind, q, matches(corpus, q), 10));
        const body = `${base.slice(0, -1)},"padding":"${'x'.repeat(reply.bytes)}"}`;
        if (reply.chunked) {
          res.writeHead(200, { 'content-type': 'application/json' });
          // in pieces, without Content-Length
          for (let i = 0; i < body.length; i += 64 * 1024) res.write(body.slice(i, i + 64 * 1024));
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        }
        return;
      }
      case 'results': {
        const count = kind === 'brave' ? Number(url.searchParams.get('count') ?? 20) : 1000;
        return json(res, 200, answer(kind, q, reply.pages ?? matches(corpus, q), count));
      }
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: kind === 'searxng' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/res/v1`,
    requests,
    reply: (...r) => queue.push(...r),
    handle: (f) => (fallback = f),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const braveError = (status: number, code: string, detail: string) => ({
  type: 'ErrorResponse',
  error: { id: 'c1d6a3b0-0000-4000-8000-000000000000', status, code, detail, meta: {} },
  time: 1700000000,
});

function answer(kind: 'searxng' | 'brave', q: string, pages: WebPage[], count: number) {
  const shown = pages.slice(0, count);
  if (kind === 'searxng') {
    return {
      query: q,
      number_of_results: shown.length,
      results: shown.map((p, i) => ({
        url: p.url,
        title: p.title,
        content: p.snippet,
        engine: i % 2 ? 'duckduckgo' : 'google',
        engines: i % 2 ? ['duckduckgo'] : ['google', 'duckduckgo'],
        template: 'default.html',
        parsed_url: ['https', new URL(p.url).host, new URL(p.url).pathname, '', '', ''],
        positions: [i + 1],
        score: 1 / (i + 1),
        category: 'general',
        publishedDate: p.published ?? null,
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    };
  }
  return {
    type: 'search',
    query: {
      original: q,
      show_strict_warning: false,
      is_navigational: false,
      is_news_breaking: false,
      spellcheck_off: true,
      country: 'us',
      bad_results: false,
      should_fallback: false,
      postal_code: '',
      city: '',
      header_country: '',
      more_results_available: false,
      state: '',
    },
    mixed: { type: 'mixed', main: shown.map((_, i) => ({ type: 'web', index: i, all: false })), top: [], side: [] },
    web: {
      type: 'search',
      family_friendly: true,
      results: shown.map((p) => ({
        type: 'search_result',
        subtype: 'generic',
        title: p.title,
        url: p.url,
        is_source_local: false,
        is_source_both: false,
        description: p.snippet,
        page_age: p.published,
        age: p.published ? new Date(p.published).toDateString() : undefined,
        language: 'en',
        family_friendly: true,
        profile: { name: new URL(p.url).host, url: p.url, long_name: new URL(p.url).host, img: '' },
        meta_url: {
          scheme: 'https',
          netloc: new URL(p.url).host,
          hostname: new URL(p.url).host,
          favicon: '',
          path: new URL(p.url).pathname,
        },
        ...(p.extraSnippets ? { extra_snippets: p.extraSnippets } : {}),
      })),
    },
  };
}

export const startSearxngDouble = (corpus: WebPage[] = []) => startDouble('searxng', corpus, null);
export const startBraveDouble = (corpus: WebPage[] = [], options: { apiKey?: string } = {}) =>
  startDouble('brave', corpus, options.apiKey ?? null);

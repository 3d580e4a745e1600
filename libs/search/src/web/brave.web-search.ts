import { getJson, isHttpUrl, plainText, webQuery } from './outbound-json';
import { WebResult, WebSearchProvider, WebSearchProviderError } from './web-search.port';

export interface BraveWebSearchOptions {
  /** The subscription token (sent as `X-Subscription-Token`; never in messages, logs or the adapter's JSON). */
  apiKey: string;
  /** Base URL up to `/web/search`; default `https://api.search.brave.com/res/v1`. */
  url?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/** Brave answers at most 20 web results per request. */
const BRAVE_MAX_COUNT = 20;

/**
 * The Brave Search API: `GET {url}/web/search?q=…&count=…` with `X-Subscription-Token`. The answer's
 * `web.results[]` carry `title`, `url`, `description` (with `<strong>` highlights, made plain text
 * here), optional `extra_snippets` (appended to the snippet) and `page_age` (ISO date) / `age`. An
 * answer without a `web` section is a search with no web results; one that is not a Brave search
 * answer (no `type`, or `web.results` not a list) is a `bad_response`. Queries are cut to 400
 * characters (Brave's limit).
 */
export class BraveWebSearch implements WebSearchProvider {
  readonly name = 'brave';
  readonly #apiKey: string;
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(options: BraveWebSearchOptions) {
    if (!options.apiKey) throw new Error('The Brave Search API needs a subscription token (LARDER_BRAVE_API_KEY)');
    const raw = options.url ?? 'https://api.search.brave.com/res/v1';
    if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol))
      throw new Error('The Brave Search URL must be an http(s) URL');
    const base = new URL(raw);
    if (base.username || base.password) throw new Error('The Brave Search URL must not carry credentials');
    base.pathname = `${base.pathname.replace(/\/+$/, '').replace(/\/web\/search$/, '')}/web/search`;
    base.hash = '';
    this.base = base;
    this.#apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  }

  toJSON() {
    return { provider: this.name, endpoint: `${this.base.origin}${this.base.pathname}` };
  }

  async search(query: string, count: number, signal?: AbortSignal): Promise<WebResult[]> {
    const url = new URL(this.base);
    url.searchParams.set('q', webQuery(query, 400));
    url.searchParams.set('count', String(Math.max(1, Math.min(BRAVE_MAX_COUNT, count))));
    const body = await getJson(url, {
      provider: this.name,
      headers: { 'x-subscription-token': this.#apiKey, 'accept-encoding': 'identity' },
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxBytes,
      retries: 1,
      signal,
      secrets: [this.#apiKey],
    });
    const b = body as { type?: unknown; web?: { results?: unknown } } | null;
    if (!b || typeof b !== 'object' || Array.isArray(b) || typeof b.type !== 'string')
      throw new WebSearchProviderError(this.name, 'bad_response', 'brave answered JSON that is not a search answer');
    if (b.web === undefined || b.web === null) return [];
    if (typeof b.web !== 'object' || !Array.isArray(b.web.results))
      throw new WebSearchProviderError(
        this.name,
        'bad_response',
        'brave answered a web section without a results list',
      );
    const out: WebResult[] = [];
    for (const r of b.web.results as Array<Record<string, unknown>>) {
      if (out.length >= count) break;
      if (!r || typeof r !== 'object' || !isHttpUrl(r.url)) continue;
      const title = typeof r.title === 'string' ? plainText(r.title) : '';
      const extra = Array.isArray(r.extra_snippets)
        ? r.extra_snippets.filter((x): x is string => typeof x === 'string').map(plainText)
        : [];
      const snippet = [typeof r.description === 'string' ? plainText(r.description) : '', ...extra]
        .filter(Boolean)
        .join(' … ');
      if (!title && !snippet) continue;
      const published =
        typeof r.page_age === 'string' && r.page_age ? r.page_age : typeof r.age === 'string' && r.age ? r.age : null;
      out.push({ url: r.url, title: title || r.url, snippet, published, provider: this.name });
    }
    return out;
  }
}

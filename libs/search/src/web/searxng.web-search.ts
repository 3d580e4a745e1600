import { getJson, isHttpUrl, plainText, webQuery } from './outbound-json';
import { WebResult, WebSearchProvider, WebSearchProviderError } from './web-search.port';

export interface SearxngWebSearchOptions {
  /** The instance's base URL (`http://127.0.0.1:8888`, or with a path prefix); query parameters in it (`categories`, `language`, `engines`) are kept on every request. */
  url: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * A SearXNG instance's JSON API: `GET {url}/search?q=…&format=json` (the instance must list `json` in
 * `search.formats` of its settings; otherwise it answers 403). Its `results[]` carry `url`, `title`,
 * `content` (the snippet), `engine`/`engines`, `score` and `publishedDate`, already ranked by the
 * instance's merge of its engines; `answers`, `infoboxes` and `suggestions` are not used. A body
 * without a `results` list is a `bad_response`; entries without an http(s) `url` are skipped.
 */
export class SearxngWebSearch implements WebSearchProvider {
  readonly name = 'searxng';
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(options: SearxngWebSearchOptions) {
    if (!URL.canParse(options.url) || !/^https?:$/.test(new URL(options.url).protocol))
      throw new Error('The SearXNG URL must be an http(s) URL such as http://127.0.0.1:8888');
    const base = new URL(options.url);
    if (base.username || base.password) throw new Error('The SearXNG URL must not carry credentials');
    base.pathname = `${base.pathname.replace(/\/+$/, '').replace(/\/search$/, '')}/search`;
    base.hash = '';
    this.base = base;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  }

  toJSON() {
    return { provider: this.name, endpoint: `${this.base.origin}${this.base.pathname}` };
  }

  async search(query: string, count: number, signal?: AbortSignal): Promise<WebResult[]> {
    const url = new URL(this.base);
    url.searchParams.set('q', webQuery(query));
    url.searchParams.set('format', 'json');
    if (!url.searchParams.has('pageno')) url.searchParams.set('pageno', '1');
    const body = await getJson(url, {
      provider: this.name,
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxBytes,
      retries: 1,
      signal,
    });
    const results = (body as { results?: unknown } | null)?.results;
    if (!body || typeof body !== 'object' || !Array.isArray(results))
      throw new WebSearchProviderError(this.name, 'bad_response', 'searxng answered JSON without a results list');
    const out: WebResult[] = [];
    for (const r of results as Array<Record<string, unknown>>) {
      if (out.length >= count) break;
      if (!r || typeof r !== 'object' || !isHttpUrl(r.url)) continue;
      const title = typeof r.title === 'string' ? plainText(r.title) : '';
      const snippet = typeof r.content === 'string' ? plainText(r.content) : '';
      if (!title && !snippet) continue;
      out.push({
        url: r.url,
        title: title || r.url,
        snippet,
        published: typeof r.publishedDate === 'string' && r.publishedDate ? r.publishedDate : null,
        provider: this.name,
      });
    }
    return out;
  }
}

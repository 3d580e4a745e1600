import { DomainError } from '@larder/kernel';

/** The reserved store identifier of the web: a search naming it searches the web instead of a store. */
export const WEB_STORE = 'mixedbread/web';

/** One result of a web search provider. */
export interface WebResult {
  url: string;
  title: string;
  /** The provider's excerpt of the page, as plain text. */
  snippet: string;
  /** When the page was published, as the provider gives it (ISO 8601 where it gives one), or null. */
  published: string | null;
  /** The provider that found it first (`searxng`, `brave`). */
  provider: string;
  /** Every provider that found it (merged results), the first one first. */
  providers?: string[];
}

/** One web search API (SearXNG, Brave, …) behind the `WebSearch` port. Adapters: `*.web-search.ts` in this folder. */
export interface WebSearchProvider {
  /** Short, stable, secret-free name (`searxng`, `brave`): in headers, activity events and messages. */
  readonly name: string;
  /** Up to `count` results, best first; rejects with a `WebSearchProviderError` (never with the key in its message). */
  search(query: string, count: number, signal?: AbortSignal): Promise<WebResult[]>;
}

/** Why a provider gave no results: no answer in time, unreachable or 5xx, refused (4xx), an answer too large, or not the documented JSON. */
export type WebSearchFailureKind = 'timeout' | 'unavailable' | 'refused' | 'too_large' | 'bad_response';

export class WebSearchProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: WebSearchFailureKind,
    message: string,
    readonly upstreamStatus: number | null = null,
  ) {
    super(message);
    this.name = 'WebSearchProviderError';
  }
}

/** What a search of every configured provider gave: the merged results, who answered, who failed and why. */
export interface WebSearchOutcome {
  results: WebResult[];
  answered: string[];
  failed: Array<{ provider: string; kind: WebSearchFailureKind; message: string }>;
}

/** The web store's search: every configured provider in parallel, results merged and deduplicated by URL. */
export interface WebSearch {
  /** The configured providers' names, in configuration order. */
  readonly providers: string[];
  /** Never rejects for a provider's failure (it is listed in `failed`); rejects only when `signal` aborts. */
  search(query: string, count: number, signal?: AbortSignal): Promise<WebSearchOutcome>;
}

/** The configured web search, or null (none configured): inject with `@Optional() @Inject(WEB_SEARCH)`. */
export const WEB_SEARCH = Symbol('WEB_SEARCH');

/** Every configured provider failed for a search that named only the web store: 502 in the contract's error shape. */
export class WebSearchUnavailableError extends DomainError {
  readonly status = 502;
  readonly type = 'web_search_unavailable';
}

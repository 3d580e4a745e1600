import { Logger } from '@nestjs/common';
import { WebResult, WebSearch, WebSearchOutcome, WebSearchProvider, WebSearchProviderError } from './web-search.port';

const TRACKING = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|ref_src)$/i;

/**
 * The key two providers' links to one page share: scheme-less, host lower-cased without `www.`, no
 * default port, no fragment, no trailing slash, tracking parameters (`utm_*`, `fbclid`, `gclid`, …)
 * dropped and the other parameters sorted.
 */
export function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw.trim();
  }
  const host = u.hostname.toLowerCase().replace(/^www\./, '');
  const port =
    u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443'))
      ? `:${u.port}`
      : '';
  const params = [...u.searchParams.entries()]
    .filter(([k]) => !TRACKING.test(k))
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  const path = u.pathname.replace(/\/+$/, '') || '';
  return `${host}${port}${path}${query}`;
}

/**
 * Results of several providers merged into one list: taken rank by rank, round-robin over the
 * providers in configuration order, a page found by several of them kept once (its first
 * occurrence, with the longer snippet and every provider that found it), up to `count`.
 */
export function mergeResults(lists: WebResult[][], count: number): WebResult[] {
  const byKey = new Map<string, WebResult & { providers: string[] }>();
  const out: Array<WebResult & { providers: string[] }> = [];
  for (let rank = 0; lists.some((l) => rank < l.length); rank++) {
    for (const list of lists) {
      const r = list[rank];
      if (!r) continue;
      const key = normalizeUrl(r.url);
      const seen = byKey.get(key);
      if (seen) {
        if (!seen.providers.includes(r.provider)) seen.providers.push(r.provider);
        if (r.snippet.length > seen.snippet.length) seen.snippet = r.snippet;
        if (!seen.published && r.published) seen.published = r.published;
        continue;
      }
      const merged = { ...r, providers: [r.provider] };
      byKey.set(key, merged);
      out.push(merged);
    }
  }
  return out.slice(0, count);
}

/**
 * The `WebSearch` port over a mixture of providers: all of them asked at once (each with its own
 * timeout, retries and size limit), the answers merged; a provider that fails is reported in
 * `failed` and the others' results still count.
 */
export class MixedWebSearch implements WebSearch {
  private readonly logger = new Logger('WebSearch');
  readonly providers: string[];

  constructor(private readonly adapters: WebSearchProvider[]) {
    if (!adapters.length) throw new Error('A web search needs at least one provider');
    this.providers = adapters.map((a) => a.name);
  }

  toJSON() {
    return { providers: this.providers };
  }

  async search(query: string, count: number, signal?: AbortSignal): Promise<WebSearchOutcome> {
    const settled = await Promise.allSettled(this.adapters.map((a) => a.search(query, count, signal)));
    if (signal?.aborted) throw signal.reason;
    const lists: WebResult[][] = [];
    const outcome: WebSearchOutcome = { results: [], answered: [], failed: [] };
    settled.forEach((s, i) => {
      const provider = this.adapters[i].name;
      if (s.status === 'fulfilled') {
        lists.push(s.value);
        outcome.answered.push(provider);
        return;
      }
      const err = s.reason as Error;
      const kind = err instanceof WebSearchProviderError ? err.kind : 'unavailable';
      const message = err instanceof WebSearchProviderError ? err.message : `${provider} failed`;
      this.logger.warn(`web search provider ${provider} failed (${kind}): ${message}`);
      outcome.failed.push({ provider, kind, message });
    });
    outcome.results = mergeResults(lists, count);
    return outcome;
  }
}

import type { WebSearch, WebSearchProvider } from '@larder/search';
import { MixedWebSearch } from '@larder/search/web/mixed-web-search';
import { SearxngWebSearch } from '@larder/search/web/searxng.web-search';
import { BraveWebSearch } from '@larder/search/web/brave.web-search';
import { LarderConfig } from '../config';

/** The web store's providers, asked together (a mixture), or null when none is configured; keys stay inside the adapters. */
export function createWebSearch(config: LarderConfig): WebSearch | null {
  const limits = { timeoutMs: config.webSearchTimeoutMs, maxBytes: config.webSearchMaxBytes };
  const providers: WebSearchProvider[] = config.webSearchProviders.map((name) =>
    name === 'searxng'
      ? new SearxngWebSearch({ url: config.searxngUrl!, ...limits })
      : new BraveWebSearch({ apiKey: config.braveApiKey!, url: config.braveUrl ?? undefined, ...limits }),
  );
  return providers.length ? new MixedWebSearch(providers) : null;
}

import { mergeResults, MixedWebSearch, normalizeUrl } from './mixed-web-search';
import { WebResult, WebSearchProvider, WebSearchProviderError } from './web-search.port';

const r = (url: string, provider: string, snippet = 's'): WebResult => ({
  url,
  title: url,
  snippet,
  published: null,
  provider,
});
const provider = (name: string, answer: () => Promise<WebResult[]>): WebSearchProvider => ({ name, search: answer });

describe('web search mixture', () => {
  it('normalizes URLs: scheme, www., case of the host, default port, fragment, trailing slash, tracking parameters, parameter order', () => {
    const same = [
      'https://www.Example.com/a/?b=2&a=1#top',
      'http://example.com:80/a?a=1&b=2&utm_source=news',
      'https://example.com:443/a/?a=1&fbclid=x&b=2',
    ];
    expect(new Set(same.map(normalizeUrl)).size).toBe(1);
    expect(normalizeUrl('https://example.com/a')).not.toBe(normalizeUrl('https://example.com/b'));
    expect(normalizeUrl('https://example.com:8080/a')).toBe('example.com:8080/a');
  });

  it('merges rank by rank, round-robin over the providers, a page found twice kept once with both providers and the longer snippet', () => {
    const merged = mergeResults(
      [
        [r('https://a.example/1', 'searxng'), r('https://b.example/', 'searxng', 'short')],
        [r('https://www.b.example', 'brave', 'a longer snippet'), r('https://c.example/', 'brave')],
      ],
      10,
    );
    expect(merged.map((x) => x.url)).toEqual(['https://a.example/1', 'https://www.b.example', 'https://c.example/']);
    expect(merged[1]).toMatchObject({
      provider: 'brave',
      providers: ['brave', 'searxng'],
      snippet: 'a longer snippet',
    });
    expect(mergeResults([[r('https://a.example/1', 'x'), r('https://a.example/2', 'x')]], 1)).toHaveLength(1);
  });

  it('asks every provider at once; one failing is reported and the others count; a non-provider error says nothing of itself', async () => {
    const web = new MixedWebSearch([
      provider('searxng', () =>
        Promise.reject(new WebSearchProviderError('searxng', 'timeout', 'searxng did not answer within 5 ms')),
      ),
      provider('brave', () => Promise.resolve([r('https://x.example/', 'brave')])),
      provider('other', () => Promise.reject(new Error('token=secret-123 leaked'))),
    ]);
    const out = await web.search('q', 5);
    expect(out.results.map((x) => x.url)).toEqual(['https://x.example/']);
    expect(out.answered).toEqual(['brave']);
    expect(out.failed).toEqual([
      { provider: 'searxng', kind: 'timeout', message: 'searxng did not answer within 5 ms' },
      { provider: 'other', kind: 'unavailable', message: 'other failed' },
    ]);
    expect(JSON.stringify(out)).not.toContain('secret-123');
  });
});

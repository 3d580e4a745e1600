import { SearxngWebSearch } from './searxng.web-search';
import { WebSearchProviderError } from './web-search.port';
import { startSearxngDouble, WebPage, WebSearchDouble } from './testing/web-search-doubles';

const PAGES: WebPage[] = [
  {
    url: 'https://en.wikipedia.org/wiki/Sauerkraut',
    title: 'Sauerkraut - Wikipedia',
    snippet: 'Sauerkraut is <b>finely cut</b> raw cabbage that has been fermented by lactic acid bacteria.',
    published: '2024-03-01T00:00:00',
  },
  {
    url: 'https://example.org/kimchi',
    title: 'Kimchi &amp; other ferments',
    snippet: 'Kimchi is fermented cabbage with chili.',
  },
];

async function failure(p: Promise<unknown>): Promise<WebSearchProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebSearchProviderError);
  return err as WebSearchProviderError;
}

describe('SearxngWebSearch against a SearXNG JSON API double', () => {
  let double: WebSearchDouble;
  const adapter = (o: { timeoutMs?: number; maxBytes?: number; url?: string } = {}) =>
    new SearxngWebSearch({ url: o.url ?? double.url, timeoutMs: o.timeoutMs ?? 3000, maxBytes: o.maxBytes });

  beforeEach(async () => {
    double = await startSearxngDouble(PAGES);
  });
  afterEach(() => double.close());

  it('sends q and format=json to /search (keeping the base URL’s parameters) and reads results[] as plain-text url/title/snippet/published', async () => {
    const results = await adapter({ url: `${double.url}/?categories=general&language=en` }).search(
      'fermented   cabbage',
      10,
    );
    expect(double.requests).toHaveLength(1);
    const r = double.requests[0];
    expect(r.path).toBe('/search');
    expect(r.query.get('q')).toBe('fermented cabbage');
    expect(r.query.get('format')).toBe('json');
    expect(r.query.get('categories')).toBe('general');
    expect(r.query.get('language')).toBe('en');
    expect(results).toEqual([
      {
        url: 'https://en.wikipedia.org/wiki/Sauerkraut',
        title: 'Sauerkraut - Wikipedia',
        snippet: 'Sauerkraut is finely cut raw cabbage that has been fermented by lactic acid bacteria.',
        published: '2024-03-01T00:00:00',
        provider: 'searxng',
      },
      {
        url: 'https://example.org/kimchi',
        title: 'Kimchi & other ferments',
        snippet: 'Kimchi is fermented cabbage with chili.',
        published: null,
        provider: 'searxng',
      },
    ]);
  });

  it('keeps at most count results, skips entries without an http(s) url or any text', async () => {
    double.reply({
      kind: 'raw',
      body: JSON.stringify({
        query: 'x',
        results: [
          { url: 'javascript:alert(1)', title: 'bad', content: 'bad' },
          { title: 'no url', content: 'none' },
          { url: 'https://a.example/', title: '', content: '' },
          null,
          { url: 'https://b.example/1', title: 'B1', content: 'one' },
          { url: 'https://b.example/2', title: 'B2', content: 'two' },
          { url: 'https://b.example/3', title: 'B3', content: 'three' },
        ],
      }),
    });
    expect((await adapter().search('x', 2)).map((r) => r.url)).toEqual(['https://b.example/1', 'https://b.example/2']);
  });

  it('an instance without the json format (403) refuses, without a retry', async () => {
    double.reply({ kind: 'error', status: 403 });
    const refused = await failure(adapter().search('cabbage', 5));
    expect(refused).toMatchObject({ provider: 'searxng', kind: 'refused', upstreamStatus: 403 });
  });

  it('retries a 5xx once, then answers', async () => {
    double.reply({ kind: 'error', status: 502 });
    const results = await adapter().search('cabbage', 5);
    expect(results).toHaveLength(2);
    expect(double.requests).toHaveLength(2);
  });

  it('retries a dropped connection once, then answers', async () => {
    double.reply({ kind: 'drop' });
    expect(await adapter().search('kimchi', 5)).toHaveLength(1);
    expect(double.requests).toHaveLength(2);
  });

  it('fails as unavailable after the one retry of a 5xx (two requests, not more)', async () => {
    double.reply({ kind: 'error', status: 500 }, { kind: 'error', status: 503 });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'unavailable', upstreamStatus: 503 });
    expect(double.requests).toHaveLength(2);
  });

  it('fails as timeout when the instance never answers, and closes the request', async () => {
    double.reply({ kind: 'hang' });
    expect(await failure(adapter({ timeoutMs: 300 }).search('cabbage', 5))).toMatchObject({
      kind: 'timeout',
      provider: 'searxng',
    });
    expect(await double.requests[0].closed).toBe('aborted');
  });

  it('refuses an answer larger than the limit, declared (Content-Length) or streamed (chunked)', async () => {
    double.reply({ kind: 'oversized', bytes: 100_000 });
    expect(await failure(adapter({ maxBytes: 50_000 }).search('cabbage', 5))).toMatchObject({ kind: 'too_large' });
    double.reply({ kind: 'oversized', bytes: 3_000_000, chunked: true });
    expect(await failure(adapter({ maxBytes: 50_000 }).search('cabbage', 5))).toMatchObject({ kind: 'too_large' });
    double.reply({ kind: 'oversized', bytes: 10_000 });
    expect(await adapter({ maxBytes: 50_000 }).search('cabbage', 5)).toHaveLength(2);
  });

  it('an answer that is not JSON, or JSON without a results list, is a bad_response', async () => {
    double.reply({ kind: 'raw', body: '{"results": [' });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
    double.reply({ kind: 'raw', body: '<html>SearXNG</html>', contentType: 'text/html' });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
    double.reply({ kind: 'raw', body: '{"results": {"url": "https://x.example"}}' });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
    double.reply({ kind: 'raw', body: 'null' });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
  });

  it('an unreachable instance is unavailable', async () => {
    await double.close();
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'unavailable' });
    double = await startSearxngDouble(PAGES);
  });

  it('refuses a URL that is not http(s) or carries credentials', () => {
    expect(() => new SearxngWebSearch({ url: 'ftp://x' })).toThrow(/http/);
    expect(() => new SearxngWebSearch({ url: 'http://user:secret@x' })).toThrow(/credentials/);
  });
});

import { inspect } from 'util';
import { BraveWebSearch } from './brave.web-search';
import { WebSearchProviderError } from './web-search.port';
import { startBraveDouble, WebPage, WebSearchDouble } from './testing/web-search-doubles';

const KEY = 'BSAq-brave-secret-token-7f31c2';
const PAGES: WebPage[] = [
  {
    url: 'https://www.example.com/sauerkraut?utm_source=x',
    title: 'How to make <strong>Sauerkraut</strong>',
    snippet: 'Mix shredded <strong>cabbage</strong> with salt and let it ferment for three weeks.',
    published: '2023-05-09T08:52:08',
    extraSnippets: ['Use 2% salt by weight.', 'Keep it below the brine.'],
  },
  { url: 'https://example.net/jam', title: 'Strawberry jam', snippet: 'Boil strawberries with sugar.' },
];

async function failure(p: Promise<unknown>): Promise<WebSearchProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebSearchProviderError);
  return err as WebSearchProviderError;
}

describe('BraveWebSearch against a Brave Search API double', () => {
  let double: WebSearchDouble;
  const adapter = (o: { timeoutMs?: number; maxBytes?: number; apiKey?: string } = {}) =>
    new BraveWebSearch({
      url: double.url,
      apiKey: o.apiKey ?? KEY,
      timeoutMs: o.timeoutMs ?? 3000,
      maxBytes: o.maxBytes,
    });

  beforeEach(async () => {
    double = await startBraveDouble(PAGES, { apiKey: KEY });
  });
  afterEach(() => double.close());

  it('sends q, count and X-Subscription-Token to /web/search and reads web.results[] (highlights removed, extra snippets appended, page_age)', async () => {
    const results = await adapter().search('sauerkraut cabbage', 5);
    const r = double.requests[0];
    expect(r.path).toBe('/res/v1/web/search');
    expect(r.query.get('q')).toBe('sauerkraut cabbage');
    expect(r.query.get('count')).toBe('5');
    expect(r.headers['x-subscription-token']).toBe(KEY);
    expect(r.headers.accept).toBe('application/json');
    expect(results).toEqual([
      {
        url: 'https://www.example.com/sauerkraut?utm_source=x',
        title: 'How to make Sauerkraut',
        snippet:
          'Mix shredded cabbage with salt and let it ferment for three weeks. … Use 2% salt by weight. … Keep it below the brine.',
        published: '2023-05-09T08:52:08',
        provider: 'brave',
      },
    ]);
  });

  it('asks for at most 20 results (Brave’s limit) and cuts long queries to 400 characters', async () => {
    await adapter().search(`${'word '.repeat(200)}end`, 50);
    expect(double.requests[0].query.get('count')).toBe('20');
    expect(double.requests[0].query.get('q')!.length).toBeLessThanOrEqual(400);
  });

  it('an answer without a web section has no results', async () => {
    double.reply({
      kind: 'raw',
      body: JSON.stringify({ type: 'search', query: { original: 'x' }, mixed: { type: 'mixed', main: [] } }),
    });
    expect(await adapter().search('x', 5)).toEqual([]);
  });

  it('a wrong key is refused (401, not retried), and the key is never in the error, its inspection or the adapter’s JSON', async () => {
    const err = await failure(adapter({ apiKey: 'BSA-wrong-token-secret-91' }).search('cabbage', 5));
    expect(err).toMatchObject({ provider: 'brave', kind: 'refused', upstreamStatus: 401 });
    expect(double.requests).toHaveLength(1);
    for (const text of [err.message, String(err.stack), inspect(err), JSON.stringify(err)])
      expect(text).not.toContain('BSA-wrong-token-secret-91');
    const a = adapter();
    expect(JSON.stringify(a)).not.toContain(KEY);
    expect(inspect(a, { depth: 5 })).not.toContain(KEY);
  });

  it('retries a 5xx once, then answers; twice is unavailable', async () => {
    double.reply({ kind: 'error', status: 500 });
    expect(await adapter().search('cabbage', 5)).toHaveLength(1);
    expect(double.requests).toHaveLength(2);
    double.reply({ kind: 'error', status: 502 }, { kind: 'error', status: 502 });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'unavailable', upstreamStatus: 502 });
    expect(double.requests).toHaveLength(4);
  });

  it('a 429 is refused without a retry', async () => {
    double.reply({ kind: 'error', status: 429 });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'refused', upstreamStatus: 429 });
    expect(double.requests).toHaveLength(1);
  });

  it('times out on an API that never answers, and closes the request', async () => {
    double.reply({ kind: 'hang' });
    const err = await failure(adapter({ timeoutMs: 300 }).search('cabbage', 5));
    expect(err).toMatchObject({ kind: 'timeout' });
    expect(err.message).not.toContain(KEY);
    expect(await double.requests[0].closed).toBe('aborted');
  });

  it('refuses an oversized answer', async () => {
    double.reply({ kind: 'oversized', bytes: 200_000 });
    expect(await failure(adapter({ maxBytes: 100_000 }).search('cabbage', 5))).toMatchObject({ kind: 'too_large' });
    double.reply({ kind: 'oversized', bytes: 200_000, chunked: true });
    expect(await failure(adapter({ maxBytes: 100_000 }).search('cabbage', 5))).toMatchObject({ kind: 'too_large' });
  });

  it('malformed answers are bad_response: not JSON, not a search answer, web.results not a list', async () => {
    double.reply(
      { kind: 'raw', body: '{"type":"search","web":{"results":[' },
      { kind: 'raw', body: '[1,2,3]' },
      { kind: 'raw', body: JSON.stringify({ type: 'search', web: { type: 'search', results: 'none' } }) },
    );
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
    expect(await failure(adapter().search('cabbage', 5))).toMatchObject({ kind: 'bad_response' });
  });

  it('needs a key', () => {
    expect(() => new BraveWebSearch({ apiKey: '' })).toThrow(/token/);
  });
});

import { request } from 'http';
import Mixedbread from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

/** One raw HTTP/1.1 request with exactly these bytes as its body (valid Content-Length). */
function rawRequest(baseURL: string, path: string, init: { method: string; headers: Record<string, string>; body?: Buffer | string }): Promise<{ status: number; body: string }> {
  const url = new URL(path, baseURL);
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body);
    const req = request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: init.method, headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a hostile tenant cannot crash, wedge or confuse the service (issue 19, raw HTTP)', () => {
  let t: TestLarder;
  let key: string;
  let c: Mixedbread;
  let storeId: string;
  const auth = () => ({ authorization: `Bearer ${key}` });
  const alive = async () => expect((await fetch(`${t.baseURL}/v1/stores`, { headers: auth() })).status).toBe(200);

  beforeAll(async () => {
    t = await startTestLarder();
    key = (await t.newOrganization('hostile')).apiKey;
    c = t.client(key);
    storeId = (await c.stores.create({ name: 'target' })).id;
  });
  afterAll(async () => t?.close());

  it.each([['/v1/files'], ['/v1/stores/{store}/files/upload']])('a multipart body without its closing boundary on %s is a 4xx and the server lives', async (route) => {
    const boundary = 'larderboundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello, never closed\r\n`;
    const res = await rawRequest(t.baseURL, route.replace('{store}', storeId), {
      method: 'POST',
      headers: { ...auth(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    await alive();
    // nothing half-written: no file was listed
    expect((await c.files.list()).data.filter((f) => f.filename === 'a.txt')).toEqual([]);
  });

  it('%25 and bad escapes in a path are 4xx, never 500', async () => {
    for (const path of ['/v1/stores/%25', '/v1/stores/%2525', '/v1/files/%25zz', '/v1/stores/%E0%A4%A', '/v1/stores/a%00b', '/v1/files?q=%00']) {
      const res = await fetch(`${t.baseURL}${path}`, { headers: auth() });
      expect([path, res.status >= 400 && res.status < 500]).toEqual([path, true]);
    }
    await alive();
  });

  it.each([
    ['a store description', '/v1/stores', { name: 'nul-desc', description: 'a\u0000b' }, ['body', 'description']],
    ['store metadata', '/v1/stores', { name: 'nul-meta', metadata: { k: 'x\u0000' } }, ['body', 'metadata', 'k']],
    ['a metadata key', '/v1/stores', { name: 'nul-key', metadata: { 'k\u0000': 1 } }, ['body', 'metadata', 'k\u0000']],
    ['an API key name', '/v1/api-keys', { name: 'key\u0000' }, ['body', 'name']],
    ['a grep pattern', '/v1/stores/grep', { pattern: 'a\u0000', store_identifiers: ['target'] }, ['body', 'pattern']],
    ['a search query', '/v1/stores/search', { query: 'jam\u0000', store_identifiers: ['target'] }, ['body', 'query']],
  ])('NUL in %s is a 422 with its loc', async (_what, path, body, loc) => {
    const res = await fetch(`${t.baseURL}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(422);
    const json = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(json.detail[0].loc).toEqual(loc);
  });

  it('metadata nested 5,000 deep is a 422, not a stack overflow', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const res = await fetch(`${t.baseURL}/v1/stores`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: `{"name":"deep","metadata":${deep}}` });
    expect(res.status).toBe(422);
    await alive();
  });

  it('a JSON route refuses a form-encoded body or one without a content type (415), creating nothing', async () => {
    const form = await fetch(`${t.baseURL}/v1/stores`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=formed' });
    expect(form.status).toBe(415);
    const none = await rawRequest(t.baseURL, '/v1/stores', { method: 'POST', headers: auth(), body: '{"name":"untyped"}' });
    expect(none.status).toBe(415);
    expect(JSON.parse(none.body)).toMatchObject({ error: { code: 415, type: 'unsupported_media_type' } });
    const names = (await c.stores.list()).data.map((s) => s.name);
    expect(names).toEqual(['target']);
    // a POST without a body still works (reroll, revoke, …)
    const k = await c.apiKeys.create({ name: 'bodyless' });
    const reroll = await rawRequest(t.baseURL, `/v1/api-keys/${k.id}/reroll`, { method: 'POST', headers: auth() });
    expect(reroll.status).toBe(200);
  });
});

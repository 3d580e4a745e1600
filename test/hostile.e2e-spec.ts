import { request } from 'http';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { handleStore } from '@larder/stores/stores.writer';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

/** One raw HTTP/1.1 request with exactly these bytes as its body (valid Content-Length). */
function rawRequest(
  baseURL: string,
  path: string,
  init: { method: string; headers: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; body: string }> {
  const url = new URL(path, baseURL);
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
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

describe('a hostile tenant cannot crash, wedge or confuse the service (raw HTTP)', () => {
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

  it.each([['/v1/files'], ['/v1/stores/{store}/files/upload']])(
    'a multipart body without its closing boundary on %s is a 4xx and the server lives',
    async (route) => {
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
    },
  );

  it('%25 and bad escapes in a path are 4xx, never 500', async () => {
    for (const path of [
      '/v1/stores/%25',
      '/v1/stores/%2525',
      '/v1/files/%25zz',
      '/v1/stores/%E0%A4%A',
      '/v1/stores/a%00b',
      '/v1/files?q=%00',
    ]) {
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
    const res = await fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(422);
    const json = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(json.detail[0].loc).toEqual(loc);
  });

  it('metadata nested 5,000 deep is a 422, not a stack overflow', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const res = await fetch(`${t.baseURL}/v1/stores`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: `{"name":"deep","metadata":${deep}}`,
    });
    expect(res.status).toBe(422);
    await alive();
  });

  it('a JSON route refuses a form-encoded body or one without a content type (415), creating nothing', async () => {
    const form = await fetch(`${t.baseURL}/v1/stores`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=formed',
    });
    expect(form.status).toBe(415);
    const none = await rawRequest(t.baseURL, '/v1/stores', {
      method: 'POST',
      headers: auth(),
      body: '{"name":"untyped"}',
    });
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

describe('crash leftovers and cross-tenant signals', () => {
  let t: TestLarder;
  beforeAll(async () => {
    t = await startTestLarder();
  });
  afterAll(async () => t?.close());

  it('a store deleted by a process that died before releasing its name leaves the name free (kill -9 between the two appends)', async () => {
    const { organizationId, apiKey } = await t.newOrganization('crashy');
    const c = t.client(apiKey);
    const store = await c.stores.create({ name: 'reborn' });
    // what a kill -9 right after the delete leaves: StoreDeleted stored, the name claim never released
    await handleStore(
      t.larder.infra.eventStore,
      { type: 'DeleteStore', storeId: store.id, organizationId, now: new Date() },
      { orgId: organizationId, actor: 'test' },
    );
    await t.larder.infra.runner.waitFor(['stores'], await t.larder.infra.eventStore.headPosition());
    await expect(c.stores.retrieve(store.id)).rejects.toMatchObject({ status: 404 });
    const again = await c.stores.create({ name: 'reborn' });
    expect(again.id).not.toBe(store.id);
    expect((await c.stores.retrieve('reborn')).id).toBe(again.id);
  });

  it('two organizations ingesting the same bytes share no artifact: nothing tells one that the other holds the file', async () => {
    const bytes = Buffer.from(`a confidential memo, ${'word '.repeat(200)}`);
    const ingested: Array<{ org: string; chunksKey: string; vectorsKey: string | null }> = [];
    for (const name of ['tenant-a', 'tenant-b']) {
      const { organizationId, apiKey } = await t.newOrganization(name);
      const c = t.client(apiKey);
      const store = await c.stores.create({ name: 'memos' });
      const sf = await c.stores.files.upload({
        storeIdentifier: store.id,
        file: await toFile(bytes, 'memo.txt', { type: 'text/plain' }),
      });
      for (
        let i = 0;
        i < 300 && (await c.stores.files.retrieve(sf.id, { store_identifier: store.id })).status !== 'completed';
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      const events = await t.larder.infra.eventStore.readAll({ maxCount: 100_000 });
      const done = events.filter((e) => e.type === 'StoreFileIngested' && e.metadata.orgId === organizationId).pop()!;
      ingested.push({ org: organizationId, ...(done.data as { chunksKey: string; vectorsKey: string | null }) });
    }
    const [a, b] = ingested;
    expect(a.chunksKey).toContain(a.org);
    expect(b.chunksKey).toContain(b.org);
    expect(b.chunksKey).not.toBe(a.chunksKey);
    expect(b.vectorsKey).not.toBe(a.vectorsKey);
  });
});

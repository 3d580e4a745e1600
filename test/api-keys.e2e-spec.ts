import Mixedbread from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(60_000);

describe('API keys through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let admin: Mixedbread;

  beforeAll(async () => {
    t = await startTestLarder();
    admin = t.client(t.rootKey);
  });
  afterAll(async () => t?.close());

  const raw = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${t.baseURL}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${init.key ?? t.rootKey}`,
        'content-type': 'application/json',
        ...(init.headers ?? {}),
      },
    });

  it('info() answers name and version without a key', async () => {
    const info = await admin.info();
    expect(info).toEqual({ name: 'larder', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const anonymous = await fetch(`${t.baseURL}/`);
    expect(anonymous.status).toBe(200);
  });

  it('runs the whole lifecycle: create, retrieve, list, update, reroll, revoke, delete', async () => {
    const created = await admin.apiKeys.create({
      name: 'ci',
      scope: [{ method: 'read', resource_type: 'store' }],
      expires_at: '2099-01-01T00:00:00Z',
    });
    expect(created).toMatchObject({
      object: 'api_key',
      name: 'ci',
      expires_at: '2099-01-01T00:00:00.000Z',
      scope: [{ method: 'read', resource_type: 'store' }],
    });
    expect(created.value).toMatch(/^mxb_[A-Za-z0-9]{43}$/);
    expect(created.redacted_value).toContain(created.value.slice(-4));
    expect(created.redacted_value).not.toContain(created.value.slice(4, 20));
    for (const f of ['id', 'name', 'redacted_value', 'created_at', 'updated_at']) expect(created).toHaveProperty(f);

    // read-your-writes: visible at once
    const got = await admin.apiKeys.retrieve(created.id);
    expect(got).not.toHaveProperty('value');
    expect(got.id).toBe(created.id);

    const patched = await raw(`/v1/api-keys/${created.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ name: 'renamed' }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ id: created.id, name: 'renamed' });

    // a scoped key authenticates but may not manage keys
    const scoped = t.client(created.value);
    await expect(scoped.apiKeys.list()).rejects.toMatchObject({ status: 403 });

    const rerolled = await admin.apiKeys.reroll(created.id);
    expect(rerolled.value).not.toBe(created.value);
    expect(rerolled.id).toBe(created.id);
    // the old secret fails before reroll's response returned
    await expect(t.client(created.value).apiKeys.list()).rejects.toMatchObject({ status: 401 });
    await expect(t.client(rerolled.value).apiKeys.list()).rejects.toMatchObject({ status: 403 }); // new one works (403 = scope, not auth)

    const revoked = await admin.apiKeys.revoke(created.id);
    expect(Date.parse(revoked.expires_at!)).toBeLessThanOrEqual(Date.now());
    const revokedErr = await t
      .client(rerolled.value)
      .apiKeys.list()
      .catch((e: unknown) => e);
    expect(revokedErr).toMatchObject({ status: 401 });
    expect((revokedErr as { error: unknown }).error).toMatchObject({
      error: { code: 401, type: 'unauthorized' },
      message: expect.stringMatching(/revoked/),
    });

    const deleted = await admin.apiKeys.delete(created.id);
    expect(deleted).toEqual({ id: created.id, deleted: true, object: 'api_key' });
    await expect(admin.apiKeys.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('pages through more than one page with the client’s auto-pagination', async () => {
    const { apiKey } = await t.newOrganization('paging');
    const c = t.client(apiKey);
    const made = [];
    for (let i = 0; i < 12; i++) made.push(await c.apiKeys.create({ name: `p${i}` }));
    const first = await c.apiKeys.list({ limit: 5 });
    expect(first.data).toHaveLength(5);
    expect(first.pagination).toEqual({ limit: 5, offset: 0, total: 13 });
    const seen: string[] = [];
    for await (const k of c.apiKeys.list({ limit: 5 })) seen.push(k.id);
    expect(seen).toHaveLength(13);
    expect(new Set(seen).size).toBe(13);
    for (const m of made) expect(seen).toContain(m.id);
  });

  it('keeps organizations apart', async () => {
    const a = await t.newOrganization('a');
    const b = await t.newOrganization('b');
    const ka = await t.client(a.apiKey).apiKeys.create({ name: 'a-secret' });
    const bClient = t.client(b.apiKey);
    await expect(bClient.apiKeys.retrieve(ka.id)).rejects.toMatchObject({ status: 404 });
    await expect(bClient.apiKeys.revoke(ka.id)).rejects.toMatchObject({ status: 404 });
    await expect(bClient.apiKeys.reroll(ka.id)).rejects.toMatchObject({ status: 404 });
    await expect(bClient.apiKeys.delete(ka.id)).rejects.toMatchObject({ status: 404 });
    const ids: string[] = [];
    for await (const k of bClient.apiKeys.list()) ids.push(k.id);
    expect(ids).not.toContain(ka.id);
    expect(ids).toHaveLength(1);
    // a's key still works
    expect((await t.client(ka.value).apiKeys.retrieve(ka.id)).name).toBe('a-secret');
  });

  it('refuses missing, malformed and expired keys with 401', async () => {
    expect((await fetch(`${t.baseURL}/v1/api-keys`)).status).toBe(401);
    expect((await raw('/v1/api-keys', { key: 'lrd_nope' })).status).toBe(401);
    const short = await admin.apiKeys.create({ name: 'short', expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await t.client(short.value).apiKeys.retrieve(short.id)).id).toBe(short.id);
    await new Promise((r) => setTimeout(r, 1600));
    await expect(t.client(short.value).apiKeys.retrieve(short.id)).rejects.toMatchObject({ status: 401 });
  });

  it('answers malformed bodies with 422 HTTPValidationError and creates nothing', async () => {
    const before = (await admin.apiKeys.list()).pagination.total;
    const cases: Array<[string, string]> = [
      ['{"name": 5}', 'body.name'],
      ['{"scope": [{"method": "fly"}]}', 'body.scope.0.method'],
      ['{"scope": "all"}', 'body.scope'],
      ['{"expires_at": "soon"}', 'body.expires_at'],
      ['{"expires_at": "2001-01-01T00:00:00Z"}', 'body.expires_at'],
      ['{not json', 'body'],
      ['[1,2,3]', 'body'],
    ];
    for (const [body, loc] of cases) {
      const res = await raw('/v1/api-keys', { method: 'POST', body });
      expect(res.status).toBe(422);
      const json = (await res.json()) as { detail: Array<{ loc: unknown[]; msg: string; type: string }> };
      expect(json.detail.length).toBeGreaterThan(0);
      expect(json.detail.map((d) => d.loc.join('.'))).toContain(loc);
      for (const d of json.detail) expect(typeof d.msg === 'string' && typeof d.type === 'string').toBe(true);
    }
    await expect(admin.apiKeys.create({ name: 7 as unknown as string })).rejects.toMatchObject({ status: 422 });
    expect((await admin.apiKeys.list()).pagination.total).toBe(before);
    const q = await raw('/v1/api-keys?limit=abc');
    expect(q.status).toBe(422);
  });

  it('maintains last_active_at', async () => {
    const { apiKey } = await t.newOrganization('activity');
    const c = t.client(apiKey);
    const list = await c.apiKeys.list();
    const me = list.data[0];
    const deadline = Date.now() + 5000;
    let seen = me.last_active_at;
    while (!seen && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      seen = (await c.apiKeys.retrieve(me.id)).last_active_at;
    }
    expect(seen).toBeTruthy();
  });

  it('unknown routes and ids give the contract error shape', async () => {
    const res = await raw('/v1/nowhere');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, type: 'not_found' }, message: expect.any(String) });
    const bad = await raw('/v1/api-keys/not-a-uuid');
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ detail: [{ loc: ['path', 'api_key_id'], type: 'uuid_parsing' }] });
  });
});

import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

/**
 * A revoked, rerolled or deleted key is refused on the very next request, however late the api-keys
 * read model is (LARDER_CONSISTENCY_TIMEOUT_MS=1: every write answers without waiting for it).
 */
describe('revocation takes effect on the next request while the read models lag', () => {
  let t: TestLarder;
  let admin: string;
  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_CONSISTENCY_TIMEOUT_MS: '1' } });
    admin = (await t.newOrganization('revoker')).apiKey;
    await untilAuthenticates(admin);
  });
  afterAll(async () => t?.close());

  const call = async (method: string, path: string, key: string) => {
    const res = await fetch(`${t.baseURL}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** A new key authenticates once its read model has caught up. */
  const untilAuthenticates = async (key: string) => {
    for (let i = 0; i < 500 && (await call('GET', '/v1/stores', key)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect((await call('GET', '/v1/stores', key)).status).toBe(200);
  };
  const usableKey = async (): Promise<{ id: string; value: string }> => {
    const created = await call('POST', '/v1/api-keys', admin);
    expect(created.status).toBe(201);
    const key = created.body as { id: string; value: string };
    await untilAuthenticates(key.value);
    return key;
  };

  const ROUNDS = 15;

  it('revoke: the key is refused right after the answer', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = await usableKey();
      expect((await call('POST', `/v1/api-keys/${key.id}/revoke`, admin)).status).toBe(200);
      expect((await call('GET', '/v1/stores', key.value)).status).toBe(401);
    }
  });

  it('reroll: the old secret is refused right after the answer', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = await usableKey();
      expect((await call('POST', `/v1/api-keys/${key.id}/reroll`, admin)).status).toBe(200);
      expect((await call('GET', '/v1/stores', key.value)).status).toBe(401);
    }
  });

  it('delete: the key is refused right after the answer', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = await usableKey();
      expect((await call('DELETE', `/v1/api-keys/${key.id}`, admin)).status).toBe(200);
      expect((await call('GET', '/v1/stores', key.value)).status).toBe(401);
    }
  });
});

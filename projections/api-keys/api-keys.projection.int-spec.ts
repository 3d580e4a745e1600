import { apiKeyDecider, ApiKeyCommand } from '@larder/api-keys/api-key.aggregate';
import { apiKeyStream } from '@larder/api-keys/streams';
import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { ApiKeysProjection } from './api-keys.projection';
import { API_KEYS_TABLE } from './api-keys.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const key = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('api-keys projection', () => {
  const pg = projectionTestDatabase();

  it('keeps one row per live key: renames, expiry, use, reroll and revocation applied; deleted keys gone', async () => {
    const log = new TestEventLog();
    const run = (c: ApiKeyCommand) =>
      log.decide(apiKeyDecider, apiKeyStream(c.apiKeyId), c, { orgId: c.organizationId, actor: 'admin-key' });
    const create = (n: number, o: Partial<Extract<ApiKeyCommand, { type: 'CreateApiKey' }>> = {}) =>
      run({
        type: 'CreateApiKey',
        apiKeyId: key(n),
        organizationId: ORG,
        name: `k${n}`,
        secretHash: `hash-${n}`,
        redactedValue: `lrd_****000${n}`,
        scope: null,
        expiresAt: null,
        admin: false,
        now: t(n),
        ...o,
      });
    const base = (n: number, organizationId = ORG) => ({ apiKeyId: key(n), organizationId });

    create(1, { scope: [{ method: 'read', resource_type: 'store', resource_id: 'handbook' }], expiresAt: t(3600) });
    create(2, { admin: true });
    create(3, { expiresAt: t(3600) });
    create(4);
    create(5, { organizationId: OTHER_ORG });
    create(6, { expiresAt: t(30) });
    run({ type: 'UpdateApiKey', ...base(1), name: 'ci', expiresAt: t(7200), now: t(10) });
    run({ type: 'RecordApiKeyUse', ...base(1), minIntervalMs: 60_000, now: t(20) });
    run({ type: 'RecordApiKeyUse', ...base(1), minIntervalMs: 60_000, now: t(30) }); // within the interval: no event
    run({ type: 'RerollApiKey', ...base(1), secretHash: 'hash-1b', redactedValue: 'lrd_****001b', now: t(40) });
    run({ type: 'RevokeApiKey', ...base(2), now: t(50) });
    run({ type: 'UpdateApiKey', ...base(2), name: 'old admin', now: t(55) });
    run({ type: 'RevokeApiKey', ...base(3), now: t(60) });
    run({ type: 'DeleteApiKey', ...base(4), now: t(70) });
    run({ type: 'RevokeApiKey', ...base(6), now: t(90) }); // already expired: revocation keeps the earlier expiry
    run({ type: 'RecordApiKeyUse', ...base(5, OTHER_ORG), minIntervalMs: 0, now: t(80) });

    const rows = await pg.project(new ApiKeysProjection(), log.events);
    const common = { scope: null, expires_at: null, revoked_at: null, admin: false, last_active_at: null };
    expect(rows[API_KEYS_TABLE]).toEqual([
      {
        ...common,
        id: key(1),
        organization_id: ORG,
        name: 'ci',
        secret_hash: 'hash-1b',
        redacted_value: 'lrd_****001b',
        scope: [{ method: 'read', resource_type: 'store', resource_id: 'handbook' }],
        expires_at: t(7200),
        created_at: t(1),
        updated_at: t(40),
        last_active_at: t(20),
        revision: '3',
      },
      {
        ...common,
        id: key(2),
        organization_id: ORG,
        name: 'old admin',
        secret_hash: 'hash-2',
        redacted_value: 'lrd_****0002',
        admin: true,
        expires_at: t(50),
        revoked_at: t(50),
        created_at: t(2),
        updated_at: t(55),
        revision: '2',
      },
      {
        ...common,
        id: key(3),
        organization_id: ORG,
        name: 'k3',
        secret_hash: 'hash-3',
        redacted_value: 'lrd_****0003',
        expires_at: t(60),
        revoked_at: t(60),
        created_at: t(3),
        updated_at: t(60),
        revision: '1',
      },
      {
        ...common,
        id: key(5),
        organization_id: OTHER_ORG,
        name: 'k5',
        secret_hash: 'hash-5',
        redacted_value: 'lrd_****0005',
        created_at: t(5),
        updated_at: t(5),
        last_active_at: t(80),
        revision: '1',
      },
      {
        ...common,
        id: key(6),
        organization_id: ORG,
        name: 'k6',
        secret_hash: 'hash-6',
        redacted_value: 'lrd_****0006',
        expires_at: t(30),
        revoked_at: t(90),
        created_at: t(6),
        updated_at: t(90),
        revision: '1',
      },
    ]);
  });
});

import { ConflictError, NotFoundError } from '@larder/kernel';
import { apiKeyDecider, ApiKeyCommand } from './api-key.aggregate';
import { ApiKeyEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const KEY = '22222222-2222-4222-8222-222222222222';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const created: ApiKeyEvent = {
  type: 'ApiKeyCreated',
  data: {
    apiKeyId: KEY,
    organizationId: ORG,
    name: 'k',
    secretHash: 'h1',
    redactedValue: 'lrd_****abcd',
    scope: null,
    expiresAt: null,
    admin: false,
    createdAt: t(0).toISOString(),
  },
};

/** given events, when command, then events (or an error) */
function given(events: ApiKeyEvent[]) {
  const state = events.reduce(apiKeyDecider.evolve, apiKeyDecider.initialState());
  return { when: (c: ApiKeyCommand) => () => apiKeyDecider.decide(c, state) };
}

describe('API key decider', () => {
  it('creates a key', () => {
    const events = given([]).when({
      type: 'CreateApiKey',
      apiKeyId: KEY,
      organizationId: ORG,
      name: 'k',
      secretHash: 'h1',
      redactedValue: 'r',
      scope: [{ method: 'read', resource_type: 'store' }],
      expiresAt: t(60),
      admin: false,
      now: t(0),
    })();
    expect(events).toEqual([
      {
        type: 'ApiKeyCreated',
        data: expect.objectContaining({
          apiKeyId: KEY,
          organizationId: ORG,
          expiresAt: t(60).toISOString(),
          scope: [{ method: 'read', resource_type: 'store' }],
        }),
      },
    ]);
    expect(JSON.stringify(events)).not.toMatch(/mxb_|lrd_/); // only hash + redacted form are given to it
  });

  it('refuses to create a key twice', () => {
    expect(given([created]).when({ ...created.data, type: 'CreateApiKey', expiresAt: null, now: t(1) })).toThrow(
      ConflictError,
    );
  });

  it('treats another organization’s key as missing', () => {
    expect(given([created]).when({ type: 'RevokeApiKey', apiKeyId: KEY, organizationId: 'other', now: t(1) })).toThrow(
      NotFoundError,
    );
  });

  it('revokes once; revoking again appends nothing', () => {
    const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { apiKeyId: KEY, revokedAt: t(5).toISOString() } };
    expect(given([created]).when({ type: 'RevokeApiKey', apiKeyId: KEY, organizationId: ORG, now: t(5) })()).toEqual([
      revoked,
    ]);
    expect(
      given([created, revoked]).when({ type: 'RevokeApiKey', apiKeyId: KEY, organizationId: ORG, now: t(6) })(),
    ).toEqual([]);
  });

  it('revocation shows as expires_at in state', () => {
    const s = [
      created,
      { type: 'ApiKeyRevoked', data: { apiKeyId: KEY, revokedAt: t(5).toISOString() } } as ApiKeyEvent,
    ].reduce(apiKeyDecider.evolve, apiKeyDecider.initialState());
    expect(s.expiresAt).toBe(t(5).toISOString());
    expect(s.status).toBe('revoked');
  });

  it('rerolls any key that exists, a revoked one too (which stays revoked), but not a deleted one', () => {
    const cmd: ApiKeyCommand = {
      type: 'RerollApiKey',
      apiKeyId: KEY,
      organizationId: ORG,
      secretHash: 'h2',
      redactedValue: 'r2',
      now: t(3),
    };
    const rerolled = [
      {
        type: 'ApiKeyRerolled',
        data: { apiKeyId: KEY, secretHash: 'h2', redactedValue: 'r2', rerolledAt: t(3).toISOString() },
      },
    ];
    expect(given([created]).when(cmd)()).toEqual(rerolled);
    const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { apiKeyId: KEY, revokedAt: t(2).toISOString() } };
    expect(given([created, revoked]).when(cmd)()).toEqual(rerolled);
    const after = [created, revoked, ...(rerolled as ApiKeyEvent[])].reduce(
      apiKeyDecider.evolve,
      apiKeyDecider.initialState(),
    );
    expect(after).toMatchObject({ status: 'revoked', expiresAt: t(2).toISOString(), redactedValue: 'r2' });
    expect(
      given([created, { type: 'ApiKeyDeleted', data: { apiKeyId: KEY, deletedAt: t(2).toISOString() } }]).when(cmd),
    ).toThrow(NotFoundError);
  });

  it('updates only what is given, and nothing when nothing is given', () => {
    expect(
      given([created]).when({ type: 'UpdateApiKey', apiKeyId: KEY, organizationId: ORG, name: 'n', now: t(2) })(),
    ).toEqual([{ type: 'ApiKeyUpdated', data: { apiKeyId: KEY, name: 'n', updatedAt: t(2).toISOString() } }]);
    expect(given([created]).when({ type: 'UpdateApiKey', apiKeyId: KEY, organizationId: ORG, now: t(2) })()).toEqual(
      [],
    );
  });

  it('a deleted key is gone for every command', () => {
    const deleted: ApiKeyEvent = { type: 'ApiKeyDeleted', data: { apiKeyId: KEY, deletedAt: t(2).toISOString() } };
    expect(
      given([created, deleted]).when({ type: 'DeleteApiKey', apiKeyId: KEY, organizationId: ORG, now: t(3) }),
    ).toThrow(NotFoundError);
    expect(
      given([created, deleted]).when({
        type: 'UpdateApiKey',
        apiKeyId: KEY,
        organizationId: ORG,
        name: 'x',
        now: t(3),
      }),
    ).toThrow(NotFoundError);
  });

  it('records use at most once per interval', () => {
    const used: ApiKeyEvent = { type: 'ApiKeyUsed', data: { apiKeyId: KEY, usedAt: t(10).toISOString() } };
    const use = (s: number): ApiKeyCommand => ({
      type: 'RecordApiKeyUse',
      apiKeyId: KEY,
      organizationId: ORG,
      now: t(s),
      minIntervalMs: 30_000,
    });
    expect(given([created]).when(use(10))()).toEqual([used]);
    expect(given([created, used]).when(use(20))()).toEqual([]);
    expect(given([created, used]).when(use(45))()).toHaveLength(1);
  });
});

import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import { API_KEY_EVENT_TYPES, ApiKeyEvent } from '@larder/api-keys/events';
import { Projection } from '../runner/projection';
import { API_KEYS_TABLE as T } from './api-keys.tables';

/**
 * `api-keys`: one row per live key, looked up by secret hash on every request. Rows are guarded by
 * the stream revision, so applying an event twice changes nothing.
 */
export class ApiKeysProjection implements Projection {
  readonly name = 'api-keys';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = API_KEY_EVENT_TYPES;

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      name text NOT NULL,
      secret_hash text NOT NULL,
      redacted_value text NOT NULL,
      scope jsonb,
      expires_at timestamptz,
      revoked_at timestamptz,
      admin boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_active_at timestamptz,
      revision bigint NOT NULL
    )`);
    await m.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${T}_secret_hash ON ${T} (secret_hash)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_org_created ON ${T} (organization_id, created_at DESC, id DESC)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<ApiKeyEvent>(event);
    const rev = event.revision;
    switch (e.type) {
      case 'ApiKeyCreated': {
        const d = e.data;
        await m.query(
          `INSERT INTO ${T} (id, organization_id, name, secret_hash, redacted_value, scope, expires_at, admin, created_at, updated_at, revision)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10) ON CONFLICT (id) DO NOTHING`,
          [
            d.apiKeyId,
            d.organizationId,
            d.name,
            d.secretHash,
            d.redactedValue,
            d.scope === null ? null : JSON.stringify(d.scope),
            d.expiresAt,
            d.admin,
            d.createdAt,
            rev,
          ],
        );
        return;
      }
      case 'ApiKeyUpdated': {
        const d = e.data;
        await m.query(
          `UPDATE ${T} SET name = COALESCE($2, name),
                  expires_at = CASE WHEN $3::boolean THEN $4::timestamptz ELSE expires_at END,
                  updated_at = $5, revision = $6
            WHERE id = $1 AND revision < $6`,
          [d.apiKeyId, d.name ?? null, d.expiresAt !== undefined, d.expiresAt ?? null, d.updatedAt, rev],
        );
        return;
      }
      case 'ApiKeyRevoked':
        // Revocation is shown through expires_at (the contract has no revoked flag).
        await m.query(
          `UPDATE ${T} SET revoked_at = $2, expires_at = LEAST(COALESCE(expires_at, $2), $2), updated_at = $2, revision = $3
            WHERE id = $1 AND revision < $3`,
          [e.data.apiKeyId, e.data.revokedAt, rev],
        );
        return;
      case 'ApiKeyRerolled':
        await m.query(
          `UPDATE ${T} SET secret_hash = $2, redacted_value = $3, updated_at = $4, revision = $5 WHERE id = $1 AND revision < $5`,
          [e.data.apiKeyId, e.data.secretHash, e.data.redactedValue, e.data.rerolledAt, rev],
        );
        return;
      case 'ApiKeyDeleted':
        await m.query(`DELETE FROM ${T} WHERE id = $1`, [e.data.apiKeyId]);
        return;
      case 'ApiKeyUsed':
        await m.query(`UPDATE ${T} SET last_active_at = $2, revision = $3 WHERE id = $1 AND revision < $3`, [
          e.data.apiKeyId,
          e.data.usedAt,
          rev,
        ]);
        return;
    }
  }
}

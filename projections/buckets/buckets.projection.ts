import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import { BUCKET_EVENT_TYPES, BucketEvent } from '@larder/buckets/events';
import { Projection } from '../runner/projection';
import { BUCKETS_TABLE as T } from './buckets.tables';

/**
 * `buckets`: one row per bucket, guarded by the stream revision. A deleted bucket keeps its row
 * (`deleted_at` set) until the bucket-objects reactor has removed its stores' objects and its
 * sealed keys; listings and reads skip it. No credential is ever in a row: only the vault reference.
 */
export class BucketsProjection implements Projection {
  readonly name = 'buckets';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = BUCKET_EVENT_TYPES;

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      name text NOT NULL,
      provider text NOT NULL,
      bucket text NOT NULL,
      region text,
      endpoint_url text,
      prefix text NOT NULL,
      sse_kms_key_id text,
      auth_type text NOT NULL,
      role_arn text,
      external_id text,
      secret_ref text,
      access_key_id_last4 text,
      status text NOT NULL,
      last_error text,
      last_validated_at timestamptz,
      credentials_version int NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz,
      revision bigint NOT NULL
    )`);
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${T}_org_created ON ${T} (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<BucketEvent>(event);
    const rev = event.revision;
    switch (e.type) {
      case 'BucketCreated': {
        const d = e.data;
        await m.query(
          `INSERT INTO ${T} (id, organization_id, name, provider, bucket, region, endpoint_url, prefix, sse_kms_key_id, auth_type, role_arn, external_id,
              secret_ref, access_key_id_last4, status, last_validated_at, credentials_version, created_at, updated_at, revision)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'active', $15, $16, $17, $17, $18) ON CONFLICT (id) DO NOTHING`,
          [
            d.bucketId,
            d.organizationId,
            d.name,
            d.provider,
            d.bucket,
            d.region,
            d.endpointUrl,
            d.prefix,
            d.sseKmsKeyId,
            d.authType,
            d.roleArn,
            d.externalId,
            d.secretRef,
            d.accessKeyIdLast4,
            d.validatedAt,
            d.credentialsVersion,
            d.at,
            rev,
          ],
        );
        return;
      }
      case 'BucketCredentialsRotated': {
        const d = e.data;
        await m.query(
          `UPDATE ${T} SET secret_ref = $3, access_key_id_last4 = $4, credentials_version = $5, status = 'active', last_error = NULL, last_validated_at = $6, updated_at = $7, revision = $2
            WHERE id = $1 AND revision < $2`,
          [d.bucketId, rev, d.secretRef, d.accessKeyIdLast4, d.credentialsVersion, d.validatedAt, d.at],
        );
        return;
      }
      case 'BucketAccessFailed':
        await m.query(
          `UPDATE ${T} SET status = 'error', last_error = $3, last_validated_at = $4, updated_at = $4, revision = $2 WHERE id = $1 AND revision < $2`,
          [e.data.bucketId, rev, e.data.reason, e.data.at],
        );
        return;
      case 'BucketAccessRestored':
        await m.query(
          `UPDATE ${T} SET status = 'active', last_error = NULL, last_validated_at = $3, updated_at = $3, revision = $2 WHERE id = $1 AND revision < $2`,
          [e.data.bucketId, rev, e.data.at],
        );
        return;
      case 'BucketDeleted':
        await m.query(
          `UPDATE ${T} SET deleted_at = $3, updated_at = $3, revision = $2 WHERE id = $1 AND revision < $2`,
          [e.data.bucketId, rev, e.data.at],
        );
        return;
    }
  }
}

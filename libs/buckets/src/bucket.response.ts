import type { BucketRow } from '@larder/projections/buckets/buckets.reader';
import type { BucketState } from './bucket.aggregate';

/**
 * `Bucket`: never a credential. `last_error` is Larder's addition (why the status is
 * `error`; null otherwise).
 */
export function toBucketResponse(r: BucketRow) {
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    name: r.name,
    provider: r.provider,
    bucket: r.bucket,
    region: r.region,
    endpoint_url: r.endpointUrl,
    prefix: r.prefix,
    sse_kms_key_id: r.sseKmsKeyId,
    auth_type: r.authType,
    role_arn: r.roleArn,
    external_id: r.externalId,
    status: r.status,
    last_validated_at: r.lastValidatedAt ? r.lastValidatedAt.toISOString() : null,
    has_credentials: r.authType === 'access_key' && r.secretRef !== null,
    credentials_version: r.credentialsVersion,
    last_error: r.lastError,
    object: 'bucket' as const,
  };
}
export type BucketResponse = ReturnType<typeof toBucketResponse>;

/** A bucket as its decided state shows it (the answer of a write whose read model is late). */
export function bucketRowFromState(s: BucketState): BucketRow {
  const c = s.created!;
  return {
    id: c.bucketId,
    organizationId: c.organizationId,
    name: c.name,
    provider: c.provider,
    bucket: c.bucket,
    region: c.region,
    endpointUrl: c.endpointUrl,
    prefix: c.prefix,
    sseKmsKeyId: c.sseKmsKeyId,
    authType: c.authType,
    roleArn: c.roleArn,
    externalId: c.externalId,
    secretRef: s.secretRef,
    accessKeyIdLast4: s.accessKeyIdLast4,
    status: s.status === 'error' ? 'error' : 'active',
    lastError: s.lastError,
    lastValidatedAt: s.lastValidatedAt ? new Date(s.lastValidatedAt) : null,
    credentialsVersion: s.credentialsVersion,
    createdAt: new Date(c.at),
    updatedAt: new Date(s.updatedAt ?? c.at),
    deletedAt: null,
  };
}

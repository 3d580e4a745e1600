import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { BucketCommand, bucketDecider } from '@larder/buckets/bucket.aggregate';
import { bucketStream } from '@larder/buckets/streams';
import { BucketsProjection } from './buckets.projection';
import { BUCKETS_TABLE } from './buckets.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const bucket = (n: number) => `b0c4e700-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

type Cmd<C> = C extends { now: Date } ? Omit<C, 'now'> : never;

describe('buckets projection', () => {
  const pg = projectionTestDatabase();

  it('builds one row per bucket through create, failure, rotation and deletion; never a credential, only the vault reference', async () => {
    const log = new TestEventLog();
    let clock = 0;
    const decide = (c: Cmd<BucketCommand>) =>
      log.decide(bucketDecider, bucketStream(c.bucketId), { ...c, now: t(++clock) }, { orgId: ORG, actor: 'key' });
    const identity = {
      organizationId: ORG,
      name: 'docs',
      provider: 'aws_s3' as const,
      bucket: 'acme',
      region: null,
      endpointUrl: 'https://s3.example',
      prefix: 'p/',
      sseKmsKeyId: null,
    };
    decide({
      type: 'CreateBucket',
      bucketId: bucket(1),
      ...identity,
      authType: 'access_key',
      roleArn: null,
      externalId: null,
      secretRef: 'sec_a',
      accessKeyIdLast4: 'WXYZ',
      validatedAt: t(1),
    });
    decide({ type: 'RecordBucketAccessFailure', bucketId: bucket(1), organizationId: ORG, reason: 'keys revoked' });
    decide({
      type: 'RotateBucketCredentials',
      bucketId: bucket(1),
      organizationId: ORG,
      secretRef: 'sec_b',
      accessKeyIdLast4: 'ABCD',
      validatedAt: t(3),
    });
    decide({
      type: 'CreateBucket',
      bucketId: bucket(2),
      ...identity,
      authType: 'assume_role',
      roleArn: 'arn:aws:iam::1:role/r',
      externalId: 'larder-x',
      secretRef: null,
      accessKeyIdLast4: null,
      validatedAt: t(4),
    });
    decide({ type: 'RecordBucketAccessFailure', bucketId: bucket(2), organizationId: ORG, reason: 'trust policy' });
    decide({ type: 'RecordBucketAccessRestored', bucketId: bucket(2), organizationId: ORG });
    decide({
      type: 'CreateBucket',
      bucketId: bucket(3),
      ...identity,
      authType: 'access_key',
      roleArn: null,
      externalId: null,
      secretRef: 'sec_c',
      accessKeyIdLast4: '1234',
      validatedAt: t(7),
    });
    decide({ type: 'DeleteBucket', bucketId: bucket(3), organizationId: ORG });

    // applied twice: the revision guard makes the second pass change nothing
    const rows = (await pg.project(new BucketsProjection(), [...log.events, ...log.events]))[BUCKETS_TABLE];
    const row = (n: number) => rows.find((r) => r.id === bucket(n))!;
    expect(rows).toHaveLength(3);
    expect(row(1)).toMatchObject({
      status: 'active',
      last_error: null,
      secret_ref: 'sec_b',
      access_key_id_last4: 'ABCD',
      credentials_version: 2,
      last_validated_at: t(3),
      deleted_at: null,
    });
    expect(row(2)).toMatchObject({
      auth_type: 'assume_role',
      role_arn: 'arn:aws:iam::1:role/r',
      external_id: 'larder-x',
      secret_ref: null,
      status: 'active',
      last_validated_at: t(6),
    });
    expect(row(3)).toMatchObject({ deleted_at: t(8), secret_ref: 'sec_c' }); // kept until its objects and keys are removed
    const failedOnly = (await pg.project(new BucketsProjection(), log.events.slice(0, 2)))[BUCKETS_TABLE];
    expect(failedOnly[0]).toMatchObject({ status: 'error', last_error: 'keys revoked', last_validated_at: t(2) });
  });
});

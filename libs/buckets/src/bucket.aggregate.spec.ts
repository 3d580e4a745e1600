import { BadRequestError, ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { BucketCommand, bucketDecider } from './bucket.aggregate';
import { bucketExternalIdDecider } from './bucket-external-id.aggregate';
import { BucketEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const BUCKET = '22222222-2222-4222-8222-222222222222';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();

const identity = {
  bucket: 'acme-docs',
  region: 'eu-west-1',
  endpointUrl: null,
  prefix: 'larder/',
  sseKmsKeyId: null,
  provider: 'aws_s3' as const,
  name: 'docs',
};
const createKeys: BucketCommand = {
  type: 'CreateBucket',
  bucketId: BUCKET,
  organizationId: ORG,
  ...identity,
  authType: 'access_key',
  roleArn: null,
  externalId: null,
  secretRef: 'sec_1',
  accessKeyIdLast4: 'WXYZ',
  validatedAt: t(0),
  now: t(0),
};
const created: BucketEvent = {
  type: 'BucketCreated',
  data: {
    bucketId: BUCKET,
    organizationId: ORG,
    ...identity,
    authType: 'access_key',
    roleArn: null,
    externalId: null,
    secretRef: 'sec_1',
    accessKeyIdLast4: 'WXYZ',
    credentialsVersion: 1,
    validatedAt: at(0),
    at: at(0),
  },
};
const createdWithRole: BucketEvent = {
  type: 'BucketCreated',
  data: {
    ...created.data,
    authType: 'assume_role',
    roleArn: 'arn:aws:iam::123456789012:role/larder',
    externalId: 'larder-ext',
    secretRef: null,
    accessKeyIdLast4: null,
  },
};
const rotate = (organizationId = ORG): BucketCommand => ({
  type: 'RotateBucketCredentials',
  bucketId: BUCKET,
  organizationId,
  secretRef: 'sec_2',
  accessKeyIdLast4: 'ABCD',
  validatedAt: t(5),
  now: t(5),
});
const fail = (reason: string, s = 3): BucketCommand => ({
  type: 'RecordBucketAccessFailure',
  bucketId: BUCKET,
  organizationId: ORG,
  reason,
  now: t(s),
});
const failed = (reason: string, s = 3): BucketEvent => ({
  type: 'BucketAccessFailed',
  data: { bucketId: BUCKET, organizationId: ORG, reason, at: at(s) },
});
const restore: BucketCommand = { type: 'RecordBucketAccessRestored', bucketId: BUCKET, organizationId: ORG, now: t(4) };
const remove: BucketCommand = { type: 'DeleteBucket', bucketId: BUCKET, organizationId: ORG, now: t(9) };
const deleted: BucketEvent = {
  type: 'BucketDeleted',
  data: { bucketId: BUCKET, organizationId: ORG, secretRef: 'sec_1', at: at(9) },
};

describe('bucket decider', () => {
  it('creates an active bucket at credentials version 1, validated when its probe passed', () => {
    const { state } = given(bucketDecider).when(createKeys).then(created);
    expect(state).toMatchObject({
      status: 'active',
      credentialsVersion: 1,
      secretRef: 'sec_1',
      lastValidatedAt: at(0),
      lastError: null,
    });
    given(bucketDecider, created).when(createKeys).thenThrows(ConflictError);
  });

  it('rotates an access_key bucket’s keys: a new reference, version + 1, active again', () => {
    const { state } = given(bucketDecider, created, failed('keys revoked'))
      .when(rotate())
      .then({
        type: 'BucketCredentialsRotated',
        data: {
          bucketId: BUCKET,
          organizationId: ORG,
          secretRef: 'sec_2',
          accessKeyIdLast4: 'ABCD',
          credentialsVersion: 2,
          validatedAt: at(5),
          at: at(5),
        },
      });
    expect(state).toMatchObject({ status: 'active', credentialsVersion: 2, secretRef: 'sec_2', lastError: null });
  });

  it('refuses to rotate an assume_role bucket, a deleted one, or another organization’s', () => {
    given(bucketDecider, createdWithRole)
      .when(rotate())
      .thenThrows(BadRequestError, /only access_key buckets/);
    given(bucketDecider, created, deleted).when(rotate()).thenThrows(NotFoundError);
    given(bucketDecider, created).when(rotate(OTHER_ORG)).thenThrows(NotFoundError);
    given(bucketDecider).when(rotate()).thenThrows(NotFoundError);
  });

  it('records a failure once per reason, and a restoration only after a failure', () => {
    const { state } = given(bucketDecider, created).when(fail('denied')).then(failed('denied'));
    expect(state).toMatchObject({ status: 'error', lastError: 'denied', lastValidatedAt: at(3) });
    given(bucketDecider, created, failed('denied')).when(fail('denied')).thenNothing();
    given(bucketDecider, created, failed('denied')).when(fail('unreachable', 4)).then(failed('unreachable', 4));
    given(bucketDecider, created).when(restore).thenNothing();
    const restored = given(bucketDecider, created, failed('denied'))
      .when(restore)
      .then({ type: 'BucketAccessRestored', data: { bucketId: BUCKET, organizationId: ORG, at: at(4) } });
    expect(restored.state).toMatchObject({ status: 'active', lastError: null });
  });

  it('deletes with the reference of the keys to discard; late reports about a deleted bucket change nothing', () => {
    given(bucketDecider, created).when(remove).then(deleted);
    given(bucketDecider, created, deleted).when(fail('late')).thenNothing();
    given(bucketDecider, created, deleted).when(remove).thenThrows(NotFoundError);
  });
});

describe('bucket external id decider', () => {
  it('assigns the first candidate and keeps it', () => {
    const assigned = {
      type: 'BucketExternalIdAssigned' as const,
      data: { organizationId: ORG, externalId: 'larder-a', at: at(0) },
    };
    given(bucketExternalIdDecider)
      .when({ type: 'AssignBucketExternalId', organizationId: ORG, candidate: 'larder-a', now: t(0) })
      .then(assigned);
    const again = given(bucketExternalIdDecider, assigned);
    again.when({ type: 'AssignBucketExternalId', organizationId: ORG, candidate: 'larder-b', now: t(1) }).thenNothing();
    expect(again.state.externalId).toBe('larder-a');
  });
});

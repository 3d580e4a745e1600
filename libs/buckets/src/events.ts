/**
 * The buckets context's events: the only thing other contexts may import from it. They carry no
 * credential: an access-key bucket's keys live sealed in the secret vault and events name them by
 * reference (`secretRef`) and by the last four characters of the access key id.
 */

export type BucketAuthType = 'assume_role' | 'access_key';

export interface BucketCreated {
  type: 'BucketCreated';
  data: {
    bucketId: string;
    organizationId: string;
    name: string;
    provider: 'aws_s3';
    bucket: string;
    region: string | null;
    endpointUrl: string | null;
    prefix: string;
    sseKmsKeyId: string | null;
    authType: BucketAuthType;
    /** assume_role only */
    roleArn: string | null;
    /** assume_role only: the organization's external id when the bucket was created */
    externalId: string | null;
    /** access_key only: the vault reference of the sealed keys */
    secretRef: string | null;
    /** access_key only: the access key id's last four characters */
    accessKeyIdLast4: string | null;
    credentialsVersion: number;
    /** when the create's probe succeeded */
    validatedAt: string;
    at: string;
  };
}
/** New access keys, probed against the same bucket, endpoint, region and prefix before this was recorded. */
export interface BucketCredentialsRotated {
  type: 'BucketCredentialsRotated';
  data: {
    bucketId: string;
    organizationId: string;
    secretRef: string;
    accessKeyIdLast4: string;
    credentialsVersion: number;
    validatedAt: string;
    at: string;
  };
}
/** Larder could not use the bucket (credentials revoked, bucket gone, endpoint down): its status is `error`. */
export interface BucketAccessFailed {
  type: 'BucketAccessFailed';
  data: { bucketId: string; organizationId: string; reason: string; at: string };
}
/** The bucket worked again after a failure: its status is `active`. */
export interface BucketAccessRestored {
  type: 'BucketAccessRestored';
  data: { bucketId: string; organizationId: string; at: string };
}
export interface BucketDeleted {
  type: 'BucketDeleted';
  data: { bucketId: string; organizationId: string; secretRef: string | null; at: string };
}
export type BucketEvent =
  BucketCreated | BucketCredentialsRotated | BucketAccessFailed | BucketAccessRestored | BucketDeleted;
export const BUCKET_EVENT_TYPES = [
  'BucketCreated',
  'BucketCredentialsRotated',
  'BucketAccessFailed',
  'BucketAccessRestored',
  'BucketDeleted',
] as const;

/** The organization's STS external id, assigned once (on its first assume_role bucket) and never changed. */
export interface BucketExternalIdAssigned {
  type: 'BucketExternalIdAssigned';
  data: { organizationId: string; externalId: string; at: string };
}
export type BucketExternalIdEvent = BucketExternalIdAssigned;

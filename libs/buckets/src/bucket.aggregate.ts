import { BadRequestError, ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { BucketCreated, BucketEvent } from './events';

export interface BucketState {
  status: 'absent' | 'active' | 'error' | 'deleted';
  organizationId: string | null;
  /** What the bucket was created with (its identity never changes). */
  created: BucketCreated['data'] | null;
  secretRef: string | null;
  accessKeyIdLast4: string | null;
  credentialsVersion: number;
  lastError: string | null;
  lastValidatedAt: string | null;
  updatedAt: string | null;
}

export const ROTATE_ASSUME_ROLE = (bucketId: string) =>
  `Bucket ${bucketId} authenticates with assume_role: only access_key buckets have credentials to rotate (change the role's permissions or trust policy instead)`;

type Created = Omit<BucketCreated['data'], 'credentialsVersion' | 'validatedAt' | 'at'>;

export type BucketCommand =
  | ({ type: 'CreateBucket'; validatedAt: Date; now: Date } & Created)
  | {
      type: 'RotateBucketCredentials';
      bucketId: string;
      organizationId: string;
      secretRef: string;
      accessKeyIdLast4: string;
      validatedAt: Date;
      now: Date;
    }
  | { type: 'RecordBucketAccessFailure'; bucketId: string; organizationId: string; reason: string; now: Date }
  | { type: 'RecordBucketAccessRestored'; bucketId: string; organizationId: string; now: Date }
  | { type: 'DeleteBucket'; bucketId: string; organizationId: string; now: Date };

export const bucketDecider: Decider<BucketState, BucketCommand, BucketEvent> = {
  initialState: () => ({
    status: 'absent',
    organizationId: null,
    created: null,
    secretRef: null,
    accessKeyIdLast4: null,
    credentialsVersion: 0,
    lastError: null,
    lastValidatedAt: null,
    updatedAt: null,
  }),
  evolve(s, e) {
    switch (e.type) {
      case 'BucketCreated':
        return {
          status: 'active',
          organizationId: e.data.organizationId,
          created: e.data,
          secretRef: e.data.secretRef,
          accessKeyIdLast4: e.data.accessKeyIdLast4,
          credentialsVersion: e.data.credentialsVersion,
          lastError: null,
          lastValidatedAt: e.data.validatedAt,
          updatedAt: e.data.at,
        };
      case 'BucketCredentialsRotated':
        return {
          ...s,
          status: 'active',
          secretRef: e.data.secretRef,
          accessKeyIdLast4: e.data.accessKeyIdLast4,
          credentialsVersion: e.data.credentialsVersion,
          lastError: null,
          lastValidatedAt: e.data.validatedAt,
          updatedAt: e.data.at,
        };
      case 'BucketAccessFailed':
        return { ...s, status: 'error', lastError: e.data.reason, lastValidatedAt: e.data.at, updatedAt: e.data.at };
      case 'BucketAccessRestored':
        return { ...s, status: 'active', lastError: null, lastValidatedAt: e.data.at, updatedAt: e.data.at };
      case 'BucketDeleted':
        return { ...s, status: 'deleted', updatedAt: e.data.at };
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'CreateBucket') {
      if (s.status !== 'absent') throw new ConflictError(`bucket ${c.bucketId} already exists`);
      const { type: _t, now: _n, validatedAt, ...data } = c;
      void _t;
      void _n;
      return [
        { type: 'BucketCreated', data: { ...data, credentialsVersion: 1, validatedAt: validatedAt.toISOString(), at } },
      ];
    }
    if (s.status === 'absent' || s.organizationId !== c.organizationId)
      throw new NotFoundError(`Bucket ${c.bucketId} not found`);
    if (s.status === 'deleted') {
      // a late failure report about a deleted bucket changes nothing
      if (c.type === 'RecordBucketAccessFailure' || c.type === 'RecordBucketAccessRestored') return [];
      throw new NotFoundError(`Bucket ${c.bucketId} not found`);
    }
    const ids = { bucketId: c.bucketId, organizationId: c.organizationId };
    switch (c.type) {
      case 'RotateBucketCredentials':
        if (s.created!.authType !== 'access_key') {
          throw new BadRequestError(ROTATE_ASSUME_ROLE(c.bucketId));
        }
        return [
          {
            type: 'BucketCredentialsRotated',
            data: {
              ...ids,
              secretRef: c.secretRef,
              accessKeyIdLast4: c.accessKeyIdLast4,
              credentialsVersion: s.credentialsVersion + 1,
              validatedAt: c.validatedAt.toISOString(),
              at,
            },
          },
        ];
      case 'RecordBucketAccessFailure':
        return s.status === 'error' && s.lastError === c.reason
          ? []
          : [{ type: 'BucketAccessFailed', data: { ...ids, reason: c.reason, at } }];
      case 'RecordBucketAccessRestored':
        return s.status === 'error' ? [{ type: 'BucketAccessRestored', data: { ...ids, at } }] : [];
      case 'DeleteBucket':
        return [{ type: 'BucketDeleted', data: { ...ids, secretRef: s.secretRef, at } }];
    }
  },
};

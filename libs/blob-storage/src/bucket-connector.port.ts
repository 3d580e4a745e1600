import type { BlobStorage } from './blob-storage.port';

/** Where a customer's bucket is: its immutable identity (a credential rotation must reach the same place). */
export interface BucketLocation {
  bucket: string;
  region: string | null;
  /** An S3-compatible endpoint; null for AWS S3 itself. */
  endpointUrl: string | null;
  /** Key prefix inside the bucket ("" or as given; objects are written below `<prefix>/` when it lacks the slash). */
  prefix: string;
  sseKmsKeyId: string | null;
}

/** How Larder authenticates to the bucket. */
export type BucketCredentials =
  | { type: 'access_key'; accessKeyId: string; secretAccessKey: string }
  /** Larder's own identity assumes `roleArn` through STS with the organization's external id. */
  | { type: 'assume_role'; roleArn: string; externalId: string; sessionName: string };

/** What went wrong reaching a bucket; `field` names the request field most likely at fault. */
export type BucketAccessFailure =
  /** the endpoint refused the connection, timed out or did not resolve */
  | 'unreachable'
  /** the outbound policy refused the address (loopback, private, metadata, …) */
  | 'refused'
  /** the access key or its signature was refused, or temporary credentials expired */
  | 'credentials'
  /** STS would not let Larder assume the role (trust policy, external id) */
  | 'role'
  /** the credentials work but may not do this (write, delete) on the bucket */
  | 'denied'
  | 'no_such_bucket'
  /** the bucket lives in another region than the one given */
  | 'wrong_region'
  | 'other';

/**
 * A bucket could not be used. The message says why and never holds a credential: it is shown to the
 * tenant (error responses, `last_error` of a store file) and logged.
 */
export class BucketAccessError extends Error {
  constructor(
    readonly failure: BucketAccessFailure,
    message: string,
  ) {
    super(message);
    this.name = 'BucketAccessError';
  }

  /** Worth retrying later unchanged (a network failure); the others need the tenant to fix something. */
  get transient(): boolean {
    return this.failure === 'unreachable' || this.failure === 'other';
  }

  /** The same failure, its message prefixed (which bucket). */
  about(what: string): BucketAccessError {
    return new BucketAccessError(this.failure, `${what}: ${this.message}`);
  }
}

/** A customer bucket's blob storage, with what cleanup needs beyond the BlobStorage port. */
export interface BucketStorage extends BlobStorage {
  /** Every key below `prefix` (relative to the bucket's own prefix). */
  list(prefix: string): Promise<string[]>;
  /** Deletes every object below `prefix` (relative to the bucket's own prefix); answers how many. */
  deletePrefix(prefix: string): Promise<number>;
}

/**
 * Connects to customer buckets. `probe` proves access before anything is saved: it
 * reaches the bucket, writes an object below the prefix, reads it back and deletes it (with
 * `assume_role`, after really assuming the role). Every connection goes through the outbound policy.
 */
export interface BucketConnector {
  probe(location: BucketLocation, credentials: BucketCredentials): Promise<void>;
  open(location: BucketLocation, credentials: BucketCredentials): BucketStorage;
  /** Closes kept-alive connections (at shutdown). */
  close(): void;
}

export const BUCKET_CONNECTOR = Symbol('BUCKET_CONNECTOR');

/** The prefix objects are written below: the bucket's prefix with a trailing `/` (empty stays empty). */
export function objectPrefix(prefix: string): string {
  return prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
}

/**
 * Told when Larder's own use of a bucket (ingestion, cleanup) failed or worked again, so the bucket's
 * status shows it (`error` with the reason, then `active`). Implemented by the buckets context.
 */
export interface BucketHealth {
  failed(bucketId: string, reason: string): Promise<void>;
  worked(bucketId: string): Promise<void>;
}

export const BUCKET_HEALTH = Symbol('BUCKET_HEALTH');

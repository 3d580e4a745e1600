import { Logger } from '@nestjs/common';
import { Clock, IdGenerator, isPlainObject } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';
import {
  BucketAccessError,
  BucketConnector,
  BucketCredentials,
  BucketHealth,
  BucketStorage,
  BucketStorageResolver,
} from '@larder/blob-storage';
import { SecretUnreadableError, SecretVault } from '@larder/secrets';
import type { BucketRow, BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { BucketCommand } from './bucket.aggregate';
import { ACCESS_KEY_PURPOSE, handleBucket, roleSessionName } from './buckets.writer';

/** How a bucket is named in messages: its name and id (never anything secret). */
export const describeBucket = (row: Pick<BucketRow, 'id' | 'name'>) => `Bucket '${row.name}' (${row.id})`;

/**
 * Customer buckets as BlobStorage, for Larder's own use (ingestion, the chunk index, cleanup): the
 * bucket's current credentials are opened from the vault (or the role is assumed) and the storage is
 * cached per bucket and credentials version, so a rotation takes effect on the next use. Also the
 * bucket's health: a failed use turns its status to `error` with the reason, a later success back
 * to `active`.
 */
export class BucketStorages implements BucketStorageResolver, BucketHealth {
  private readonly logger = new Logger('Buckets');
  private readonly cache = new Map<string, { version: number; storage: BucketStorage; describe: string }>();

  constructor(
    private readonly reader: BucketsReader,
    private readonly vault: SecretVault,
    private readonly connector: BucketConnector,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async storageFor(bucketId: string): Promise<{ storage: BucketStorage; describe: string }> {
    const row = await this.reader.byId(bucketId);
    if (!row) throw new BucketAccessError('no_such_bucket', `Bucket ${bucketId} does not exist`);
    const describe = describeBucket(row);
    const cached = this.cache.get(bucketId);
    if (cached && cached.version === row.credentialsVersion) return cached;
    let credentials: BucketCredentials;
    if (row.authType === 'assume_role') {
      credentials = {
        type: 'assume_role',
        roleArn: row.roleArn!,
        externalId: row.externalId!,
        sessionName: roleSessionName(row.id),
      };
    } else {
      let sealed: unknown;
      try {
        sealed = JSON.parse(await this.vault.get(row.organizationId, ACCESS_KEY_PURPOSE, row.secretRef ?? ''));
      } catch (err) {
        if (err instanceof SecretUnreadableError)
          throw new BucketAccessError('credentials', `${describe}: its stored keys cannot be opened (${err.message})`);
        throw err;
      }
      if (
        !isPlainObject(sealed) ||
        typeof sealed.access_key_id !== 'string' ||
        typeof sealed.secret_access_key !== 'string'
      ) {
        throw new BucketAccessError('credentials', `${describe}: its stored keys are malformed`);
      }
      credentials = {
        type: 'access_key',
        accessKeyId: sealed.access_key_id,
        secretAccessKey: sealed.secret_access_key,
      };
    }
    const entry = {
      version: row.credentialsVersion,
      storage: this.connector.open(
        {
          bucket: row.bucket,
          region: row.region,
          endpointUrl: row.endpointUrl,
          prefix: row.prefix,
          sseKmsKeyId: row.sseKmsKeyId,
        },
        credentials,
      ),
      describe,
    };
    this.cache.set(bucketId, entry);
    return entry;
  }

  private async record(bucketId: string, command: (row: BucketRow) => BucketCommand | null): Promise<void> {
    const row = await this.reader.byId(bucketId);
    if (!row || row.deletedAt) return;
    const c = command(row);
    if (!c) return;
    await handleBucket(
      this.store,
      c,
      { orgId: row.organizationId, actor: 'system' },
      { newIds: () => this.ids.uuid() },
    );
  }

  async failed(bucketId: string, reason: string): Promise<void> {
    await this.record(bucketId, (row) =>
      row.status === 'error' && row.lastError === reason
        ? null
        : {
            type: 'RecordBucketAccessFailure',
            bucketId,
            organizationId: row.organizationId,
            reason,
            now: this.clock.now(),
          },
    );
  }

  async worked(bucketId: string): Promise<void> {
    await this.record(bucketId, (row) =>
      row.status === 'error'
        ? { type: 'RecordBucketAccessRestored', bucketId, organizationId: row.organizationId, now: this.clock.now() }
        : null,
    );
  }

  /** Reports a failed use without letting the report itself fail the caller. */
  report(bucketId: string, err: BucketAccessError): void {
    this.failed(bucketId, err.message).catch((e: Error) =>
      this.logger.warn(`recording the failure of bucket ${bucketId}: ${e.message}`),
    );
  }
}

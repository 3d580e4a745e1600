import { Logger } from '@nestjs/common';
import { domainEvent, RecordedEvent } from '@larder/kernel';
import {
  BucketAccessError,
  generationOfObjectKey,
  parseBucketBlobKey,
  storeFileObjectsPrefix,
  storeObjectsPrefix,
} from '@larder/blob-storage';
import { SecretVault } from '@larder/secrets';
import type { StoreDeleted, StoreFileRemoved } from '@larder/stores/events';
import type { BucketDeleted } from '../events';
import { BucketStorages } from '../bucket-storages';

/**
 * Removes what Larder wrote into a customer's bucket once it is no longer referenced: a deleted
 * store's objects, a removed store file's objects (its generations up to the removed one), and a
 * deleted bucket's sealed keys (last: the log has every deletion of its stores before it, so this
 * reactor has used the keys for them by then). A bucket that refuses the deletion is marked `error`
 * with the reason and logged; the reactor moves on rather than holding up other tenants' cleanup.
 */
export class BucketObjectsReactor {
  readonly name = 'bucket-objects';
  readonly handles = ['StoreDeleted', 'StoreFileRemoved', 'BucketDeleted'] as const;
  private readonly logger = new Logger('BucketObjects');

  constructor(
    private readonly storages: BucketStorages,
    private readonly vault: SecretVault,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const e = domainEvent<StoreDeleted | StoreFileRemoved | BucketDeleted>(event);
    switch (e.type) {
      case 'StoreDeleted':
        if (e.data.bucketId)
          await this.clean(
            e.data.bucketId,
            storeObjectsPrefix(e.data.bucketId, e.data.storeId),
            () => true,
            `store ${e.data.storeId}`,
          );
        return;
      case 'StoreFileRemoved': {
        const { bucketId, generation, storeId, fileId } = e.data;
        if (bucketId && generation !== undefined) {
          await this.clean(
            bucketId,
            storeFileObjectsPrefix(bucketId, storeId, fileId),
            (key) => (generationOfObjectKey(key) ?? Infinity) <= generation,
            `file ${fileId} of store ${storeId}`,
          );
        }
        return;
      }
      case 'BucketDeleted':
        if (e.data.secretRef) await this.vault.remove(e.data.organizationId, e.data.secretRef);
        return;
    }
  }

  private async clean(
    bucketId: string,
    prefix: string,
    include: (key: string) => boolean,
    what: string,
  ): Promise<void> {
    try {
      const { storage, describe } = await this.storages.storageFor(bucketId);
      const below = parseBucketBlobKey(prefix)!.key;
      const keys = (await storage.list(below)).filter((k) => include(k));
      for (const k of keys) await storage.delete(k);
      if (keys.length)
        this.logger.log(`${describe}: removed ${keys.length} object${keys.length === 1 ? '' : 's'} of ${what}`);
    } catch (err) {
      if (!(err instanceof BucketAccessError)) throw err; // the database or the vault: retried
      const reason = `objects of ${what} could not be removed: ${err.message}`;
      this.logger.warn(`bucket ${bucketId}: ${reason}`);
      this.storages.report(bucketId, new BucketAccessError(err.failure, reason));
    }
  }
}

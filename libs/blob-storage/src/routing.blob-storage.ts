import { Readable } from 'stream';
import { BlobStorage, ByteRange, PartInfo, StoredBlob } from './blob-storage.port';
import { parseBucketBlobKey } from './bucket-keys';
import { BucketAccessError, BucketStorage } from './bucket-connector.port';

/** Finds the storage of a customer bucket (with its current credentials). */
export interface BucketStorageResolver {
  storageFor(bucketId: string): Promise<{ storage: BucketStorage; describe: string }>;
}

/**
 * The BlobStorage every context uses: platform keys go to platform storage, `buckets/<id>/…` keys to
 * that customer bucket. A bucket's failures surface as `BucketAccessError`s naming the bucket.
 */
export class RoutingBlobStorage implements BlobStorage {
  constructor(
    readonly platform: BlobStorage,
    private readonly buckets: BucketStorageResolver,
  ) {}

  get kind(): string {
    return this.platform.kind;
  }

  private async route<T>(
    key: string,
    op: (storage: BucketStorage | BlobStorage, key: string) => Promise<T>,
  ): Promise<T> {
    const inBucket = parseBucketBlobKey(key);
    if (!inBucket) return op(this.platform, key);
    const { storage, describe } = await this.buckets.storageFor(inBucket.bucketId);
    try {
      return await op(storage, inBucket.key);
    } catch (err) {
      throw err instanceof BucketAccessError ? err.about(describe) : err;
    }
  }

  put(key: string, body: Readable, options?: { contentType?: string; maxBytes?: number }): Promise<StoredBlob> {
    return this.route(key, (s, k) => s.put(k, body, options));
  }
  get(key: string, range?: ByteRange): Promise<Readable> {
    return this.route(key, (s, k) => s.get(k, range));
  }
  size(key: string): Promise<number | null> {
    return this.route(key, (s, k) => s.size(k));
  }
  delete(key: string): Promise<void> {
    return this.route(key, (s, k) => s.delete(k));
  }
  createMultipart(key: string, contentType: string): Promise<string> {
    return this.route(key, (s, k) => s.createMultipart(k, contentType));
  }
  presignPart(
    key: string,
    storageUploadId: string,
    partNumber: number,
    expiresInSeconds: number,
  ): Promise<string | null> {
    return this.route(key, (s, k) => s.presignPart(k, storageUploadId, partNumber, expiresInSeconds));
  }
  putPart(
    key: string,
    storageUploadId: string,
    partNumber: number,
    body: Readable,
    maxBytes?: number,
  ): Promise<PartInfo> {
    return this.route(key, (s, k) => s.putPart(k, storageUploadId, partNumber, body, maxBytes));
  }
  listParts(key: string, storageUploadId: string): Promise<PartInfo[]> {
    return this.route(key, (s, k) => s.listParts(k, storageUploadId));
  }
  completeMultipart(
    key: string,
    storageUploadId: string,
    parts: Array<{ partNumber: number; etag: string }>,
  ): Promise<StoredBlob> {
    return this.route(key, (s, k) => s.completeMultipart(k, storageUploadId, parts));
  }
  abortMultipart(key: string, storageUploadId: string): Promise<void> {
    return this.route(key, (s, k) => s.abortMultipart(k, storageUploadId));
  }
  /** Temporary files exist only in platform storage (customer buckets are S3: writes are atomic there). */
  sweepTemporary(olderThanMs: number): Promise<number> {
    return this.platform.sweepTemporary?.(olderThanMs) ?? Promise.resolve(0);
  }

  /** Deletes every object below a `buckets/<id>/…` prefix; answers how many. */
  deletePrefix(prefix: string): Promise<number> {
    if (!parseBucketBlobKey(prefix)) throw new Error(`deletePrefix is only for customer buckets, not ${prefix}`);
    return this.route(prefix, (s, k) => (s as BucketStorage).deletePrefix(k));
  }

  /** Every key below a `buckets/<id>/…` prefix, as full routed keys. */
  async list(prefix: string): Promise<string[]> {
    const inBucket = parseBucketBlobKey(prefix);
    if (!inBucket) throw new Error(`list is only for customer buckets, not ${prefix}`);
    const base = prefix.slice(0, prefix.length - inBucket.key.length);
    return (await this.route(prefix, (s, k) => (s as BucketStorage).list(k))).map((k) => base + k);
  }
}

/** A customer S3 bucket as BucketStorage, with every failure turned into a credential-free BucketAccessError. */
import { Readable, Transform } from 'stream';
import { BlobNotFoundError, BlobTooLargeError, ByteRange, PartInfo, StoredBlob } from '../blob-storage.port';
import { BucketAccessError, BucketAccessFailure, BucketLocation, BucketStorage } from '../bucket-connector.port';
import { S3BlobStorage } from './s3.blob-storage';
import { AwsError, CREDENTIAL_CODES, networkCodeIn, refusalIn, REGION_CODES, scrub } from './s3.errors';

/**
 * A customer bucket as BlobStorage: every failure other than a missing object becomes a
 * BucketAccessError whose message holds no credential.
 */
export class S3BucketStorage implements BucketStorage {
  readonly kind = 's3';

  constructor(
    private readonly s3: S3BlobStorage,
    private readonly location: BucketLocation,
    private readonly secrets: string[],
    private readonly maxObjectBytes: number,
  ) {}

  private classify(err: unknown): unknown {
    if (err instanceof BlobNotFoundError || err instanceof BlobTooLargeError || err instanceof BucketAccessError)
      return err;
    const refused = refusalIn(err);
    if (refused) return new BucketAccessError('refused', refused.message);
    const where = this.location.endpointUrl ?? `AWS S3 (${this.location.region ?? 'us-east-1'})`;
    const network = networkCodeIn(err);
    if (network) return new BucketAccessError('unreachable', `${where} could not be reached (${network})`);
    const e = err as AwsError;
    const code = e.name ?? e.Code ?? 'Error';
    const status = e.$metadata?.httpStatusCode;
    // a HEAD answer has no body, so no error code: say what is known
    const bodiless = code === 'Unknown' || code === 'UnknownError' || e.message === 'UnknownError';
    const detail = bodiless
      ? `HTTP ${status ?? 'error'} without an error body${status === 403 ? ': the key was revoked, or it lacks the permission' : ''}`
      : scrub(`${code}${e.message && e.message !== code ? `: ${e.message}` : ''}`, this.secrets);
    const failure: BucketAccessFailure = CREDENTIAL_CODES.has(code)
      ? 'credentials'
      : code === 'NoSuchBucket'
        ? 'no_such_bucket'
        : REGION_CODES.has(code) || status === 301
          ? 'wrong_region'
          : code === 'AccessDenied' || code === 'AllAccessDisabled' || code.startsWith('KMS') || status === 403
            ? 'denied'
            : 'other';
    const what: Record<BucketAccessFailure, string> = {
      credentials: 'the credentials were refused',
      no_such_bucket: `bucket ${this.location.bucket} does not exist`,
      wrong_region: `bucket ${this.location.bucket} is not in region ${this.location.region ?? 'us-east-1'}`,
      denied: `access to bucket ${this.location.bucket} was denied`,
      other: `bucket ${this.location.bucket} answered with an error`,
      unreachable: '',
      refused: '',
      role: '',
    };
    return new BucketAccessError(failure, `${what[failure]} (${detail})`);
  }

  private async run<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw this.classify(err);
    }
  }

  put(key: string, body: Readable, options?: { contentType?: string; maxBytes?: number }): Promise<StoredBlob> {
    return this.run(() => this.s3.put(key, body, options));
  }
  /** The object's bytes, cut off with an error beyond `maxObjectBytes` (a bucket is not trusted to answer sensibly). */
  get(key: string, range?: ByteRange): Promise<Readable> {
    return this.run(async () => {
      const body = await this.s3.get(key, range);
      const limit = this.maxObjectBytes;
      let seen = 0;
      const bucket = this.location.bucket;
      return body.pipe(
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            seen += chunk.length;
            if (seen > limit) {
              body.destroy();
              return done(
                new BucketAccessError('other', `bucket ${bucket} answered more than ${limit} bytes for ${key}`),
              );
            }
            done(null, chunk);
          },
        }),
      );
    });
  }
  async readAll(key: string): Promise<Buffer> {
    return this.run(async () => {
      const parts: Buffer[] = [];
      for await (const c of await this.get(key)) parts.push(c as Buffer);
      return Buffer.concat(parts);
    });
  }
  size(key: string): Promise<number | null> {
    return this.run(() => this.s3.size(key));
  }
  delete(key: string): Promise<void> {
    return this.run(() => this.s3.delete(key));
  }
  createMultipart(key: string, contentType: string): Promise<string> {
    return this.run(() => this.s3.createMultipart(key, contentType));
  }
  presignPart(
    key: string,
    storageUploadId: string,
    partNumber: number,
    expiresInSeconds: number,
  ): Promise<string | null> {
    return this.run(() => this.s3.presignPart(key, storageUploadId, partNumber, expiresInSeconds));
  }
  putPart(
    key: string,
    storageUploadId: string,
    partNumber: number,
    body: Readable,
    maxBytes?: number,
  ): Promise<PartInfo> {
    return this.run(() => this.s3.putPart(key, storageUploadId, partNumber, body, maxBytes));
  }
  listParts(key: string, storageUploadId: string): Promise<PartInfo[]> {
    return this.run(() => this.s3.listParts(key, storageUploadId));
  }
  completeMultipart(
    key: string,
    storageUploadId: string,
    parts: Array<{ partNumber: number; etag: string }>,
  ): Promise<StoredBlob> {
    return this.run(() => this.s3.completeMultipart(key, storageUploadId, parts));
  }
  abortMultipart(key: string, storageUploadId: string): Promise<void> {
    return this.run(() => this.s3.abortMultipart(key, storageUploadId));
  }
  list(prefix: string): Promise<string[]> {
    return this.run(() => this.s3.list(prefix));
  }
  deletePrefix(prefix: string): Promise<number> {
    return this.run(() => this.s3.deletePrefix(prefix));
  }
}

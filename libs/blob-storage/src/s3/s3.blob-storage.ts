import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  S3Client,
  S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'stream';
import {
  BlobNotFoundError,
  BlobStorage,
  BlobTooLargeError,
  ByteRange,
  PartInfo,
  StoredBlob,
} from '../blob-storage.port';
import { HashingStream } from '../hashing';

export interface S3BlobStorageOptions {
  bucket: string;
  region?: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  /** Key prefix inside the bucket. */
  prefix?: string;
  /** A credentials provider (temporary credentials from STS); takes precedence over the key pair. */
  credentials?: S3ClientConfig['credentials'];
  /** Transport (an http(s) agent that enforces the outbound policy, timeouts). */
  requestHandler?: S3ClientConfig['requestHandler'];
  maxAttempts?: number;
  /** Objects are written with SSE-KMS under this key. */
  sseKmsKeyId?: string | null;
}

/** Blobs in an S3-compatible bucket; multipart parts go straight to S3 through presigned UploadPart URLs. */
export class S3BlobStorage implements BlobStorage {
  readonly kind = 's3';
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly sse: { ServerSideEncryption?: 'aws:kms'; SSEKMSKeyId?: string };

  constructor(options: S3BlobStorageOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
    this.sse = options.sseKmsKeyId ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: options.sseKmsKeyId } : {};
    this.client = new S3Client({
      region: options.region ?? 'us-east-1',
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle ?? !!options.endpoint,
      credentials:
        options.credentials ??
        (options.accessKeyId
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey ?? '' }
          : undefined),
      ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    });
  }

  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    }
  }

  private k(key: string): string {
    return `${this.prefix}${key}`;
  }

  async put(
    key: string,
    body: Readable,
    options: { contentType?: string; maxBytes?: number } = {},
  ): Promise<StoredBlob> {
    const hasher = new HashingStream(options.maxBytes);
    body.on('error', (e) => hasher.destroy(e));
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: this.k(key),
        Body: body.pipe(hasher),
        ContentType: options.contentType,
        ...this.sse,
      },
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
    });
    await upload.done();
    return { bytes: hasher.bytes, sha256: hasher.sha256() };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.k(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return res.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
      return res.ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
  }

  /** Every key below `prefix` (relative to this storage's own prefix). */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.k(prefix), ContinuationToken: token }),
      );
      for (const o of res.Contents ?? [])
        if (o.Key?.startsWith(this.prefix)) keys.push(o.Key.slice(this.prefix.length));
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** Deletes every object below `prefix` (one DeleteObject each: every S3-compatible server has it); answers how many. */
  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += 8) await Promise.all(keys.slice(i, i + 8).map((k) => this.delete(k)));
    return keys.length;
  }

  async createMultipart(key: string, contentType: string): Promise<string> {
    const res = await this.client.send(
      new CreateMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.k(key),
        ContentType: contentType,
        ...this.sse,
      }),
    );
    return res.UploadId!;
  }

  async presignPart(
    key: string,
    uploadId: string,
    partNumber: number,
    expiresInSeconds: number,
  ): Promise<string | null> {
    return getSignedUrl(
      this.client,
      new UploadPartCommand({ Bucket: this.bucket, Key: this.k(key), UploadId: uploadId, PartNumber: partNumber }),
      {
        expiresIn: expiresInSeconds,
      },
    );
  }

  /** S3 needs a part's length up front: the part is buffered (parts are bounded by the upload's part size). */
  async putPart(
    key: string,
    uploadId: string,
    partNumber: number,
    body: Readable,
    maxBytes = 5 * 1024 ** 3,
  ): Promise<PartInfo> {
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of body) {
      n += (c as Buffer).length;
      if (n > maxBytes) throw new BlobTooLargeError(maxBytes);
      chunks.push(c as Buffer);
    }
    const buf = Buffer.concat(chunks);
    const res = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: this.k(key),
        UploadId: uploadId,
        PartNumber: partNumber,
        Body: buf,
        ContentLength: buf.length,
      }),
    );
    return { partNumber, etag: res.ETag!, bytes: buf.length };
  }

  async listParts(key: string, uploadId: string): Promise<PartInfo[]> {
    const parts: PartInfo[] = [];
    let marker: string | undefined;
    try {
      for (;;) {
        const res = await this.client.send(
          new ListPartsCommand({ Bucket: this.bucket, Key: this.k(key), UploadId: uploadId, PartNumberMarker: marker }),
        );
        for (const p of res.Parts ?? []) parts.push({ partNumber: p.PartNumber!, etag: p.ETag!, bytes: p.Size ?? 0 });
        if (!res.IsTruncated) break;
        marker = res.NextPartNumberMarker;
      }
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(uploadId);
      throw err;
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  async completeMultipart(
    key: string,
    uploadId: string,
    parts: Array<{ partNumber: number; etag: string }>,
  ): Promise<StoredBlob> {
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.k(key),
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
      }),
    );
    // Size and SHA-256 of the assembled object, streamed back once.
    const hasher = new HashingStream();
    for await (const chunk of (await this.get(key)).pipe(hasher)) void chunk;
    return { bytes: hasher.bytes, sha256: hasher.sha256() };
  }

  async abortMultipart(key: string, uploadId: string): Promise<void> {
    await this.client
      .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.k(key), UploadId: uploadId }))
      .catch((err) => {
        if (!isNotFound(err)) throw err;
      });
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number }; Code?: string };
  return (
    e?.name === 'NoSuchKey' ||
    e?.name === 'NotFound' ||
    e?.name === 'NoSuchUpload' ||
    e?.$metadata?.httpStatusCode === 404
  );
}

import { createHash, Hash } from 'crypto';
import { Transform, TransformCallback } from 'stream';
import { BlobTooLargeError } from './blob-storage.port';

/** Pass-through that counts bytes and hashes them (sha256, and md5 for S3-style ETags), with a size cap. */
export class HashingStream extends Transform {
  bytes = 0;
  private readonly sha = createHash('sha256');
  private readonly md5: Hash | null;
  constructor(
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    withMd5 = false,
  ) {
    super();
    this.md5 = withMd5 ? createHash('md5') : null;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return cb(new BlobTooLargeError(this.maxBytes));
    this.sha.update(chunk);
    this.md5?.update(chunk);
    cb(null, chunk);
  }
  sha256(): string {
    return this.sha.digest('hex');
  }
  md5hex(): string {
    return this.md5!.digest('hex');
  }
}

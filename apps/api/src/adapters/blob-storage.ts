import { join } from 'path';
import { BlobStorage, BucketConnector } from '@larder/blob-storage';
import { LocalDiskBlobStorage } from '@larder/blob-storage/local-disk/local-disk.blob-storage';
import { OutboundPolicy } from '@larder/outbound';
import { LarderConfig } from '../config';
import { LazyBucketConnector } from '../lazy-adapters';

/** Platform storage: files under dataDir/blobs, or the S3 bucket of LARDER_BLOB_STORAGE=s3 (created if missing; the S3 adapter is loaded only then). */
export async function createPlatformBlobStorage(config: LarderConfig): Promise<BlobStorage> {
  if (config.blobStorage === 's3') {
    const { S3BlobStorage } = await import('@larder/blob-storage/s3/s3.blob-storage');
    const s3 = new S3BlobStorage({
      bucket: config.s3.bucket,
      endpoint: config.s3.endpoint ?? undefined,
      region: config.s3.region,
      accessKeyId: config.s3.accessKeyId ?? undefined,
      secretAccessKey: config.s3.secretAccessKey ?? undefined,
      prefix: config.s3.prefix,
    });
    await s3.ensureBucket();
    return s3;
  }
  return new LocalDiskBlobStorage(join(config.dataDir, 'blobs'));
}

/** Connects to customer buckets (S3 protocol, STS for assume_role) through the outbound policy. */
export function createBucketConnector(config: LarderConfig, outbound: OutboundPolicy): BucketConnector {
  // made on its first use (a customer bucket's probe or open): the AWS SDK loads only then
  return new LazyBucketConnector(() => {
    const { S3BucketConnector } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@larder/blob-storage/s3/s3.bucket-connector') as typeof import('@larder/blob-storage/s3/s3.bucket-connector');
    return new S3BucketConnector({
      outbound,
      sts: {
        endpoint: config.sts.endpoint,
        region: config.sts.region,
        credentials: config.sts.accessKeyId
          ? {
              accessKeyId: config.sts.accessKeyId,
              secretAccessKey: config.sts.secretAccessKey!,
              sessionToken: config.sts.sessionToken ?? undefined,
            }
          : undefined,
      },
      requestTimeoutMs: config.bucketRequestTimeoutMs,
      // a file's copy, its chunks and its vectors are each of the order of the file itself
      maxObjectBytes: 2 * config.maxFileBytes,
    });
  });
}

import type { BucketConnector, BucketCredentials, BucketLocation, BucketStorage } from '@larder/blob-storage';

/**
 * A bucket connector made on its first use: the S3 and STS clients it loads (the AWS SDK, a large
 * module tree) are not loaded at start by a server that never connects to a customer bucket.
 */
export class LazyBucketConnector implements BucketConnector {
  private connector: BucketConnector | null = null;

  constructor(private readonly make: () => BucketConnector) {}

  private get inner(): BucketConnector {
    return (this.connector ??= this.make());
  }

  probe(location: BucketLocation, credentials: BucketCredentials): Promise<void> {
    return this.inner.probe(location, credentials);
  }

  open(location: BucketLocation, credentials: BucketCredentials): BucketStorage {
    return this.inner.open(location, credentials);
  }

  close(): void {
    this.connector?.close();
  }
}

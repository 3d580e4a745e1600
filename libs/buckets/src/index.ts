import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { BucketsWriter } from './buckets.writer';
import { CreateBucketHandler } from './commands/create-bucket/create-bucket.handler';
import { CreateBucketHttpController } from './commands/create-bucket/create-bucket.http.controller';
import { RotateBucketCredentialsHandler } from './commands/rotate-bucket-credentials/rotate-bucket-credentials.handler';
import { RotateBucketCredentialsHttpController } from './commands/rotate-bucket-credentials/rotate-bucket-credentials.http.controller';
import { DeleteBucketHandler } from './commands/delete-bucket/delete-bucket.handler';
import { DeleteBucketHttpController } from './commands/delete-bucket/delete-bucket.http.controller';
import { ListBucketsHandler } from './queries/list-buckets/list-buckets.handler';
import { ListBucketsHttpController } from './queries/list-buckets/list-buckets.http.controller';
import { GetBucketHandler } from './queries/get-bucket/get-bucket.handler';
import { GetBucketHttpController } from './queries/get-bucket/get-bucket.http.controller';

export { BucketStorages, describeBucket } from './bucket-storages';
export { BucketObjectsReactor } from './cleanup/bucket-objects.reactor';
export type { BucketResponse } from './bucket.response';

/** Customer buckets (bring-your-own S3 storage for stores). Apps bind BUCKET_CONNECTOR, SECRET_VAULT and BUCKET_HEALTH (a BucketStorages). */
@Module({
  imports: [CqrsModule],
  controllers: [
    ListBucketsHttpController,
    CreateBucketHttpController,
    GetBucketHttpController,
    DeleteBucketHttpController,
    RotateBucketCredentialsHttpController,
  ],
  providers: [
    BucketsReader,
    StoresReader,
    BucketsWriter,
    CreateBucketHandler,
    RotateBucketCredentialsHandler,
    DeleteBucketHandler,
    ListBucketsHandler,
    GetBucketHandler,
  ],
})
export class BucketsModule {}

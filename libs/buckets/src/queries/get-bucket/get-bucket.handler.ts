import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { BucketResponse, toBucketResponse } from '../../bucket.response';
import { GetBucketQuery } from './get-bucket.query';

@QueryHandler(GetBucketQuery)
export class GetBucketHandler implements IQueryHandler<GetBucketQuery, BucketResponse> {
  constructor(private readonly reader: BucketsReader) {}

  async execute(q: GetBucketQuery): Promise<BucketResponse> {
    const row = await this.reader.get(q.organizationId, q.bucketId);
    if (!row) throw new NotFoundError(`Bucket ${q.bucketId} not found`);
    return toBucketResponse(row);
  }
}

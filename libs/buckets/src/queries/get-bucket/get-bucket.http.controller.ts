import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { BucketResponse } from '../../bucket.response';
import { GetBucketQuery } from './get-bucket.query';

@Controller('v1/buckets')
export class GetBucketHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':bucket_id')
  @RequireScope({ method: 'read', resourceType: 'bucket', resourceIdParam: 'bucket_id' })
  get(@CurrentPrincipal() p: Principal, @UuidParam('bucket_id') id: string): Promise<BucketResponse> {
    return this.queries.execute(new GetBucketQuery(p.organizationId, id));
  }
}

import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, CursorPage, Principal, RequireScope } from '@larder/kernel';
import { BucketResponse } from '../../bucket.response';
import { ListBucketsQuery } from './list-buckets.query';
import { ListBucketsRequestDto } from './list-buckets.request.dto';

@Controller('v1/buckets')
export class ListBucketsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'list', resourceType: 'bucket' })
  list(@CurrentPrincipal() p: Principal, @Query() query: ListBucketsRequestDto): Promise<CursorPage<BucketResponse>> {
    return this.queries.execute(new ListBucketsQuery(p.organizationId, query));
  }
}

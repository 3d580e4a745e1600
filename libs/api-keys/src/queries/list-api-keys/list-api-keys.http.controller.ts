import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, LimitOffsetPage, Principal, RequireScope } from '@larder/kernel';
import { ApiKeyResponse } from '../../api-key.response';
import { ListApiKeysQuery } from './list-api-keys.query';
import { ListApiKeysRequestDto } from './list-api-keys.request.dto';

@Controller('v1/api-keys')
export class ListApiKeysHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'list', resourceType: 'api_key' })
  list(
    @CurrentPrincipal() p: Principal,
    @Query() query: ListApiKeysRequestDto,
  ): Promise<LimitOffsetPage<ApiKeyResponse>> {
    return this.queries.execute(new ListApiKeysQuery(p.organizationId, query.limit ?? 100, query.offset ?? 0));
  }
}

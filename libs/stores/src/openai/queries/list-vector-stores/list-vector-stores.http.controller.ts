import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, IdCursorPage, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreResponse } from '../../vector-store.response';
import { OpenAiListRequestDto } from '../../openai-common.request.dto';
import { ListVectorStoresQuery } from './list-vector-stores.query';

@Controller('v1/vector_stores')
export class ListVectorStoresHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'list', resourceType: 'store' })
  list(
    @CurrentPrincipal() p: Principal,
    @Query() query: OpenAiListRequestDto,
  ): Promise<IdCursorPage<VectorStoreResponse>> {
    return this.queries.execute(new ListVectorStoresQuery(p.organizationId, query));
  }
}

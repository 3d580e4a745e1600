import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreResponse } from '../../vector-store.response';
import { GetVectorStoreQuery } from './get-vector-store.query';

@Controller('v1/vector_stores')
export class GetVectorStoreHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':vector_store_id')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  get(@CurrentPrincipal() p: Principal, @Param('vector_store_id') id: string): Promise<VectorStoreResponse> {
    return this.queries.execute(new GetVectorStoreQuery(p.organizationId, id));
  }
}

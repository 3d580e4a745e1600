import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute } from '@larder/kernel';
import { StoreResponse } from '../../store.response';
import { GetStoreQuery } from './get-store.query';

@Controller('v1/stores')
export class GetStoreHttpController {
  constructor(private readonly queries: QueryBus) {}

  @StoreRoute('read', Get(':store_identifier'))
  get(@CurrentPrincipal() p: Principal, @Param('store_identifier') id: string): Promise<StoreResponse> {
    return this.queries.execute(new GetStoreQuery(p.organizationId, id));
  }
}

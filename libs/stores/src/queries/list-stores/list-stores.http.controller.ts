import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, CursorPage, Principal, RequireScope } from '@larder/kernel';
import { StoreResponse } from '../../store.response';
import { ListStoresQuery } from './list-stores.query';
import { ListStoresRequestDto } from './list-stores.request.dto';

@Controller('v1/stores')
export class ListStoresHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** Newest first; with `q`, best fuzzy matches on name and description first. */
  @Get()
  @RequireScope({ method: 'list', resourceType: 'store' })
  list(@CurrentPrincipal() p: Principal, @Query() query: ListStoresRequestDto): Promise<CursorPage<StoreResponse>> {
    return this.queries.execute(new ListStoresQuery(p.organizationId, query, query.q?.trim() || null));
  }
}

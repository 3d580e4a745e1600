import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, CursorPage, Principal, StoreRoute } from '@larder/kernel';
import { ActivityEventResponse } from '../../activity.response';
import { ListStoreEventsQuery } from './list-store-events.query';
import { ListStoreEventsRequestDto } from './list-store-events.request.dto';

/** A store's activity events, read from the projected activity streams. */
@Controller('v1/stores/:store_identifier/events')
export class ListStoreEventsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @StoreRoute('read', Get())
  storeEvents(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Query() query: ListStoreEventsRequestDto,
  ): Promise<CursorPage<ActivityEventResponse>> {
    return this.queries.execute(new ListStoreEventsQuery(p, sid, query.listing()));
  }
}

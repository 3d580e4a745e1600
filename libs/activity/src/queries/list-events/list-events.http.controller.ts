import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, CursorPage, Principal, RequireScope } from '@larder/kernel';
import { ActivityEventResponse } from '../../activity.response';
import { ListEventsQuery } from './list-events.query';
import { ListEventsRequestDto } from './list-events.request.dto';

/** Organization-wide activity (beyond upstream's API; docs/api.md, Activity events): the same events; `store_identifier` narrows to one store. */
@Controller('v1/events')
export class ListEventsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'read', resourceType: 'store' })
  orgEvents(
    @CurrentPrincipal() p: Principal,
    @Query() query: ListEventsRequestDto,
  ): Promise<CursorPage<ActivityEventResponse>> {
    const sid = query.store_identifier;
    return this.queries.execute(new ListEventsQuery(p, typeof sid === 'string' && sid ? sid : null, query.listing()));
  }
}

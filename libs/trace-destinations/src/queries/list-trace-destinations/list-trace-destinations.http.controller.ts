import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, LimitOffsetPage, Principal, RequireScope } from '@larder/kernel';
import { TraceDestinationResponse } from '../../trace-destination.response';
import { ListTraceDestinationsQuery } from './list-trace-destinations.query';
import { ListTraceDestinationsRequestDto } from './list-trace-destinations.request.dto';

@Controller('v1/trace-destinations')
export class ListTraceDestinationsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'list', resourceType: 'trace_destination' })
  list(
    @CurrentPrincipal() p: Principal,
    @Query() query: ListTraceDestinationsRequestDto,
  ): Promise<LimitOffsetPage<TraceDestinationResponse>> {
    return this.queries.execute(
      new ListTraceDestinationsQuery(p.organizationId, query.limit ?? 100, query.offset ?? 0),
    );
  }
}

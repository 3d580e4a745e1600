import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { TraceDestinationResponse } from '../../trace-destination.response';
import { GetTraceDestinationQuery } from './get-trace-destination.query';

@Controller('v1/trace-destinations')
export class GetTraceDestinationHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':trace_destination_id')
  @RequireScope({ method: 'read', resourceType: 'trace_destination', resourceIdParam: 'trace_destination_id' })
  get(
    @CurrentPrincipal() p: Principal,
    @UuidParam('trace_destination_id') id: string,
  ): Promise<TraceDestinationResponse> {
    return this.queries.execute(new GetTraceDestinationQuery(p.organizationId, id));
  }
}

import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { TraceDestinationsReader } from '@larder/projections/trace-destinations/trace-destinations.reader';
import { TRACE_DELIVERIES, TraceDeliveries } from '../../delivery/trace-deliveries.port';
import { TraceDestinationResponse, toTraceDestinationResponse } from '../../trace-destination.response';
import { GetTraceDestinationQuery } from './get-trace-destination.query';

/** One destination with its delivery outcome, including why its last delivery failed. */
@QueryHandler(GetTraceDestinationQuery)
export class GetTraceDestinationHandler implements IQueryHandler<GetTraceDestinationQuery, TraceDestinationResponse> {
  constructor(
    private readonly reader: TraceDestinationsReader,
    @Inject(TRACE_DELIVERIES) private readonly deliveries: TraceDeliveries,
  ) {}

  async execute({ organizationId, destinationId }: GetTraceDestinationQuery): Promise<TraceDestinationResponse> {
    const row = await this.reader.get(organizationId, destinationId);
    if (!row) throw new NotFoundError(`Trace destination ${destinationId} not found`);
    const outcome = (await this.deliveries.outcomes([row.id])).get(row.id)!;
    return toTraceDestinationResponse(row, outcome);
  }
}

import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { LimitOffsetPage, paginateByOffset } from '@larder/kernel';
import { TraceDestinationsReader } from '@larder/projections/trace-destinations/trace-destinations.reader';
import { TRACE_DELIVERIES, TraceDeliveries } from '../../delivery/trace-deliveries.port';
import { TraceDestinationResponse, toTraceDestinationResponse } from '../../trace-destination.response';
import { ListTraceDestinationsQuery } from './list-trace-destinations.query';

/** The organization's destinations, newest first, each with its last delivery outcome. */
@QueryHandler(ListTraceDestinationsQuery)
export class ListTraceDestinationsHandler implements IQueryHandler<
  ListTraceDestinationsQuery,
  LimitOffsetPage<TraceDestinationResponse>
> {
  constructor(
    private readonly reader: TraceDestinationsReader,
    @Inject(TRACE_DELIVERIES) private readonly deliveries: TraceDeliveries,
  ) {}

  execute(q: ListTraceDestinationsQuery): Promise<LimitOffsetPage<TraceDestinationResponse>> {
    return paginateByOffset({ limit: q.limit, offset: q.offset }, async ({ limit, offset }) => {
      const { rows, total } = await this.reader.list(q.organizationId, limit, offset);
      const outcomes = await this.deliveries.outcomes(rows.map((r) => r.id));
      return { rows: rows.map((r) => toTraceDestinationResponse(r, outcomes.get(r.id)!)), total };
    });
  }
}

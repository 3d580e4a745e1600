import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { TraceDestinationsReader } from '@larder/projections/trace-destinations/trace-destinations.reader';
import { TraceDestinationWriter } from './trace-destination.writer';
import { CreateTraceDestinationHandler } from './commands/create-trace-destination/create-trace-destination.handler';
import { CreateTraceDestinationHttpController } from './commands/create-trace-destination/create-trace-destination.http.controller';
import { UpdateTraceDestinationHandler } from './commands/update-trace-destination/update-trace-destination.handler';
import { UpdateTraceDestinationHttpController } from './commands/update-trace-destination/update-trace-destination.http.controller';
import { DeleteTraceDestinationHandler } from './commands/delete-trace-destination/delete-trace-destination.handler';
import { DeleteTraceDestinationHttpController } from './commands/delete-trace-destination/delete-trace-destination.http.controller';
import { GetTraceDestinationHandler } from './queries/get-trace-destination/get-trace-destination.handler';
import { GetTraceDestinationHttpController } from './queries/get-trace-destination/get-trace-destination.http.controller';
import { ListTraceDestinationsHandler } from './queries/list-trace-destinations/list-trace-destinations.handler';
import { ListTraceDestinationsHttpController } from './queries/list-trace-destinations/list-trace-destinations.http.controller';
import { TraceDeliveryWorker } from './delivery/trace-delivery.worker';

export { TRACE_EXPORT_CONFIG, CREDENTIALS_PURPOSE } from './trace-destinations.config';
export type { TraceExportConfig } from './trace-destinations.config';
export { TRACE_DELIVERIES } from './delivery/trace-deliveries.port';
export type {
  TraceDeliveries,
  DeliveryOutcome,
  PendingDelivery,
  DeliveryRetry,
  DeliveryBackoff,
} from './delivery/trace-deliveries.port';
export { TRACE_DESTINATION_CLIENT, TraceDestinationClient } from './delivery/destination-client';
export { TRACE_DELIVERY_SIGNAL, TraceDeliverySignal } from './delivery/delivery-signal';
export { TraceExportReactor } from './delivery/trace-export.reactor';
export type { TraceDestinationResponse } from './trace-destination.response';

/**
 * Trace destinations (Larder's own design; docs/api.md "Trace destinations"): CRUD at
 * `/v1/trace-destinations`, and the delivery loop that sends finished runs as OpenTelemetry spans.
 * The export reactor is built by the apps beside the other reactors.
 */
@Module({
  imports: [CqrsModule],
  controllers: [
    ListTraceDestinationsHttpController,
    CreateTraceDestinationHttpController,
    GetTraceDestinationHttpController,
    UpdateTraceDestinationHttpController,
    DeleteTraceDestinationHttpController,
  ],
  providers: [
    TraceDestinationsReader,
    TraceDestinationWriter,
    CreateTraceDestinationHandler,
    UpdateTraceDestinationHandler,
    DeleteTraceDestinationHandler,
    GetTraceDestinationHandler,
    ListTraceDestinationsHandler,
    TraceDeliveryWorker,
  ],
})
export class TraceDestinationsModule {}

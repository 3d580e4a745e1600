import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TraceDestinationWriter } from '../../trace-destination.writer';
import { DeleteTraceDestinationCommand } from './delete-trace-destination.command';

export interface TraceDestinationDeletedResponse {
  id: string;
  object: 'trace_destination';
  deleted: true;
}

/**
 * Deletes a destination: exports to it stop, the deliveries still queued for it are discarded, and its
 * credentials are removed from the vault (the export reactor repeats both after a crash).
 */
@CommandHandler(DeleteTraceDestinationCommand)
export class DeleteTraceDestinationHandler implements ICommandHandler<
  DeleteTraceDestinationCommand,
  TraceDestinationDeletedResponse
> {
  constructor(private readonly writer: TraceDestinationWriter) {}

  async execute({
    organizationId,
    actor,
    destinationId,
  }: DeleteTraceDestinationCommand): Promise<TraceDestinationDeletedResponse> {
    const state = await this.writer.state(organizationId, destinationId);
    const result = await this.writer.run({ type: 'DeleteTraceDestination', destinationId, organizationId }, actor);
    await this.writer.deliveries.forget(destinationId);
    await this.writer.discard(organizationId, state.credentialsRef);
    await this.writer.writes.settle(['trace-destinations'], result.position);
    return { id: destinationId, object: 'trace_destination', deleted: true };
  }
}

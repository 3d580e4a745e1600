import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TRACE_KINDS } from '../../events';
import { parseNewTarget } from '../../trace-destination.input';
import { TraceDestinationWriter } from '../../trace-destination.writer';
import { TraceDestinationResponse } from '../../trace-destination.response';
import { CreateTraceDestinationCommand } from './create-trace-destination.command';

/**
 * Creates a destination: its URL must pass the outbound policy and the destination must accept the
 * credentials before anything is stored; then the credentials are sealed in the vault and the event
 * (with only the vault reference) appended. A failed append removes the sealed credentials again.
 */
@CommandHandler(CreateTraceDestinationCommand)
export class CreateTraceDestinationHandler implements ICommandHandler<
  CreateTraceDestinationCommand,
  TraceDestinationResponse
> {
  constructor(private readonly writer: TraceDestinationWriter) {}

  async execute({ organizationId, actor, body }: CreateTraceDestinationCommand): Promise<TraceDestinationResponse> {
    const { target, credentials } = parseNewTarget(body.kind, body as unknown as Record<string, unknown>);
    await this.writer.check(target, credentials);
    const sealed = await this.writer.seal(organizationId, credentials);
    const destinationId = this.writer.writes.ids.uuid();
    const result = await this.writer.run(
      {
        type: 'CreateTraceDestination',
        destinationId,
        organizationId,
        name: body.name.trim(),
        target,
        enabled: body.enabled ?? true,
        traceKinds: body.trace_kinds ?? [...TRACE_KINDS],
        credentialsRef: sealed,
      },
      actor,
      sealed,
    );
    return this.writer.respond(organizationId, destinationId, result);
  }
}

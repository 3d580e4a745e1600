import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { checkUpdate } from '../../trace-destination.aggregate';
import { parseTargetChanges } from '../../trace-destination.input';
import { TraceDestinationWriter } from '../../trace-destination.writer';
import { TraceDestinationResponse } from '../../trace-destination.response';
import { UpdateTraceDestinationCommand } from './update-trace-destination.command';

/**
 * Updates a destination. Supplied credentials rotate (sealed anew; the old ones are discarded once the
 * change is stored); omitted ones are kept. A new URL, protocol or credentials are checked against the
 * destination first, and a new URL needs the credentials again (stored ones never follow a URL).
 */
@CommandHandler(UpdateTraceDestinationCommand)
export class UpdateTraceDestinationHandler implements ICommandHandler<
  UpdateTraceDestinationCommand,
  TraceDestinationResponse
> {
  constructor(private readonly writer: TraceDestinationWriter) {}

  async execute({
    organizationId,
    actor,
    destinationId,
    body,
  }: UpdateTraceDestinationCommand): Promise<TraceDestinationResponse> {
    const state = await this.writer.state(organizationId, destinationId);
    const current = state.target!;
    const { target, credentials } = parseTargetChanges(current, body as unknown as Record<string, unknown>);
    checkUpdate(state, target, !!credentials);
    const reaches = !!credentials || (!!target && JSON.stringify(target) !== JSON.stringify(current));
    if (reaches)
      await this.writer.check(
        target ?? current,
        credentials ?? (await this.writer.unseal(organizationId, state.credentialsRef, current.kind)),
      );
    const sealed = credentials ? await this.writer.seal(organizationId, credentials) : null;
    const result = await this.writer.run(
      {
        type: 'UpdateTraceDestination',
        destinationId,
        organizationId,
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        ...(body.trace_kinds !== undefined ? { traceKinds: body.trace_kinds } : {}),
        ...(target ? { target } : {}),
        ...(credentials ? { credentialsRef: sealed } : {}),
      },
      actor,
      sealed,
    );
    // rotated: the superseded credentials are discarded now (the export reactor does it again after a crash)
    if (credentials && state.credentialsRef && result.position)
      await this.writer.discard(organizationId, state.credentialsRef);
    return this.writer.respond(organizationId, destinationId, result);
  }
}

import type { UpdateTraceDestinationRequestDto } from './update-trace-destination.request.dto';

export class UpdateTraceDestinationCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly destinationId: string,
    readonly body: UpdateTraceDestinationRequestDto,
  ) {}
}

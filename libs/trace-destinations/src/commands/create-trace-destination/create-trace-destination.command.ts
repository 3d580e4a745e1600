import type { CreateTraceDestinationRequestDto } from './create-trace-destination.request.dto';

export class CreateTraceDestinationCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The checked body; its `langfuse` / `otlp` object is parsed by the handler. */
    readonly body: CreateTraceDestinationRequestDto,
  ) {}
}

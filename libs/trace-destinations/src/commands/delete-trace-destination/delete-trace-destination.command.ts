export class DeleteTraceDestinationCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly destinationId: string,
  ) {}
}

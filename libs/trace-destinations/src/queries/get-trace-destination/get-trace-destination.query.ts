export class GetTraceDestinationQuery {
  constructor(
    readonly organizationId: string,
    readonly destinationId: string,
  ) {}
}

export class ListTraceDestinationsQuery {
  constructor(
    readonly organizationId: string,
    readonly limit: number,
    readonly offset: number,
  ) {}
}

export class ListApiKeysQuery {
  constructor(
    readonly organizationId: string,
    readonly limit: number,
    readonly offset: number,
  ) {}
}

export class GetVectorStoreQuery {
  constructor(
    readonly organizationId: string,
    readonly vectorStoreId: string,
  ) {}
}

export class GetVectorStoreFileQuery {
  constructor(
    readonly organizationId: string,
    readonly vectorStoreId: string,
    readonly fileId: string,
  ) {}
}

export class GetVectorStoreFileContentQuery {
  constructor(
    readonly organizationId: string,
    readonly vectorStoreId: string,
    readonly fileId: string,
  ) {}
}

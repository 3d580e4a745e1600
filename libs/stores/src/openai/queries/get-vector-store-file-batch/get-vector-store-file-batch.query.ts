export class GetVectorStoreFileBatchQuery {
  constructor(
    readonly organizationId: string,
    readonly vectorStoreId: string,
    readonly batchId: string,
  ) {}
}

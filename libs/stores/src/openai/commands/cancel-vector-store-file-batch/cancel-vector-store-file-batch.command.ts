export class CancelVectorStoreFileBatchCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly vectorStoreId: string,
    readonly batchId: string,
  ) {}
}

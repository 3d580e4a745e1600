import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StoreFileBatchesWriter } from '../../../store-file-batches.writer';
import { toVectorStoreFileBatch, VectorStoreFileBatchResponse } from '../../vector-store.response';
import { GetVectorStoreFileBatchQuery } from './get-vector-store-file-batch.query';

@QueryHandler(GetVectorStoreFileBatchQuery)
export class GetVectorStoreFileBatchHandler implements IQueryHandler<
  GetVectorStoreFileBatchQuery,
  VectorStoreFileBatchResponse
> {
  constructor(private readonly batches: StoreFileBatchesWriter) {}

  async execute(q: GetVectorStoreFileBatchQuery): Promise<VectorStoreFileBatchResponse> {
    return toVectorStoreFileBatch(await this.batches.get(q.organizationId, q.vectorStoreId, q.batchId));
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../../stores.writer';
import { toVectorStore, VectorStoreResponse } from '../../vector-store.response';
import { GetVectorStoreQuery } from './get-vector-store.query';

@QueryHandler(GetVectorStoreQuery)
export class GetVectorStoreHandler implements IQueryHandler<GetVectorStoreQuery, VectorStoreResponse> {
  constructor(private readonly stores: StoresWriter) {}

  async execute(q: GetVectorStoreQuery): Promise<VectorStoreResponse> {
    return toVectorStore(await this.stores.resolve(q.organizationId, q.vectorStoreId));
  }
}

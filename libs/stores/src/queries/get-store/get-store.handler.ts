import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../stores.writer';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { GetStoreQuery } from './get-store.query';

@QueryHandler(GetStoreQuery)
export class GetStoreHandler implements IQueryHandler<GetStoreQuery, StoreResponse> {
  constructor(private readonly stores: StoresWriter) {}

  async execute(q: GetStoreQuery): Promise<StoreResponse> {
    return toStoreResponse(await this.stores.resolve(q.organizationId, q.storeIdentifier));
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { IdCursorPage, paginateByIdCursor } from '@larder/kernel';
import { StoreRow, StoresReader } from '@larder/projections/stores/stores.reader';
import { toVectorStore, VectorStoreResponse } from '../../vector-store.response';
import { ListVectorStoresQuery } from './list-vector-stores.query';

/** Every store of the organization (created through either API), by creation time. */
@QueryHandler(ListVectorStoresQuery)
export class ListVectorStoresHandler implements IQueryHandler<
  ListVectorStoresQuery,
  IdCursorPage<VectorStoreResponse>
> {
  constructor(private readonly reader: StoresReader) {}

  async execute({ organizationId, paging }: ListVectorStoresQuery): Promise<IdCursorPage<VectorStoreResponse>> {
    const page = await paginateByIdCursor<StoreRow>(
      paging,
      (s) => s.id,
      (q) => this.reader.pageById(organizationId, q),
    );
    return { ...page, data: page.data.map(toVectorStore) };
  }
}

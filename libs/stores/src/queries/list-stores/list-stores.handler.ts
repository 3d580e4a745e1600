import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage, paginateListing } from '@larder/kernel';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { ListStoresQuery } from './list-stores.query';

/** Newest first; with `q`, best fuzzy matches on name and description first (cursors carry the rank). */
@QueryHandler(ListStoresQuery)
export class ListStoresHandler implements IQueryHandler<ListStoresQuery, CursorPage<StoreResponse>> {
  constructor(private readonly reader: StoresReader) {}

  async execute({ organizationId: org, paging, q }: ListStoresQuery): Promise<CursorPage<StoreResponse>> {
    const page = await paginateListing<StoreRow>(paging, q, {
      createdAt: (s) => s.createdAt,
      id: (s) => s.id,
      page: (cursor, direction, take) => this.reader.page(org, cursor, direction, take),
      search: (text, offset, count) => this.reader.search(org, text, offset, count),
      count: (text) => this.reader.count(org, text),
    });
    return { ...page, data: page.data.map(toStoreResponse) };
  }
}

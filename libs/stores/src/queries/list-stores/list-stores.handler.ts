import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage, paginateByCursor } from '@larder/kernel';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { ListStoresQuery } from './list-stores.query';

/** Newest first; with `q`, best fuzzy matches on name and description first (cursors carry the rank). */
@QueryHandler(ListStoresQuery)
export class ListStoresHandler implements IQueryHandler<ListStoresQuery, CursorPage<StoreResponse>> {
  constructor(private readonly reader: StoresReader) {}

  async execute({ organizationId: org, paging, q }: ListStoresQuery): Promise<CursorPage<StoreResponse>> {
    let page: CursorPage<StoreRow & { rank?: number }>;
    if (q) {
      page = await paginateByCursor<StoreRow & { rank?: number }>(
        paging,
        (s) => ({ r: s.rank! }),
        async ({ cursor, direction, take }) => {
          const at = cursor ? Number(cursor.r) : direction === 'forward' ? -1 : 0;
          const start = direction === 'forward' ? at + 1 : Math.max(0, at - take);
          const count = direction === 'forward' ? take : at - start;
          const rows = (await this.reader.search(org, q, start, count)).map((s, i) => Object.assign(s, { rank: start + i }));
          return direction === 'forward' ? rows : rows.reverse();
        },
        () => this.reader.count(org, q),
      );
    } else {
      page = await paginateByCursor<StoreRow>(
        paging,
        (s) => ({ c: s.createdAt.toISOString(), id: s.id }),
        ({ cursor, direction, take }) => this.reader.page(org, cursor as { c: string; id: string } | null, direction, take),
        () => this.reader.count(org),
      );
    }
    return { ...page, data: page.data.map(toStoreResponse) };
  }
}

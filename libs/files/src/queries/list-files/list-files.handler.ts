import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage, paginateByCursor } from '@larder/kernel';
import { FileRow, FilesReader } from '@larder/projections/files/files.reader';
import { FileObjectResponse, toFileObject } from '../../file.response';
import { ListFilesQuery } from './list-files.query';

/**
 * Newest first. With `q`, best fuzzy matches first; the cursor then carries a rank, so paging both
 * ways stays consistent for the same `q`.
 */
@QueryHandler(ListFilesQuery)
export class ListFilesHandler implements IQueryHandler<ListFilesQuery, CursorPage<FileObjectResponse>> {
  constructor(private readonly reader: FilesReader) {}

  async execute({ organizationId: org, page: request, q }: ListFilesQuery): Promise<CursorPage<FileObjectResponse>> {
    let page: CursorPage<FileRow & { rank?: number }>;
    if (q) {
      page = await paginateByCursor<FileRow & { rank?: number }>(
        request,
        (f) => ({ r: f.rank! }),
        async ({ cursor, direction, take }) => {
          const at = cursor ? Number(cursor.r) : direction === 'forward' ? -1 : 0;
          const start = direction === 'forward' ? at + 1 : Math.max(0, at - take);
          const count = direction === 'forward' ? take : at - start;
          const rows = (await this.reader.search(org, q, start, count)).map((f, i) => Object.assign(f, { rank: start + i }));
          // backward: the `take` rows before the cursor, nearest first
          return direction === 'forward' ? rows : rows.reverse();
        },
        () => this.reader.count(org, q),
      );
    } else {
      page = await paginateByCursor<FileRow>(
        request,
        (f) => ({ c: f.createdAt.toISOString(), id: f.id }),
        ({ cursor, direction, take }) => this.reader.page(org, cursor as { c: string; id: string } | null, direction, take),
        () => this.reader.count(org),
      );
    }
    return { ...page, data: page.data.map(toFileObject) };
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage, paginateListing } from '@larder/kernel';
import { FileRow, FilesReader } from '@larder/projections/files/files.reader';
import { FileObjectResponse, toFileObject } from '../../file.response';
import { ListFilesQuery } from './list-files.query';

/** Newest first; with `q`, best fuzzy matches first (cursors carry the rank). */
@QueryHandler(ListFilesQuery)
export class ListFilesHandler implements IQueryHandler<ListFilesQuery, CursorPage<FileObjectResponse>> {
  constructor(private readonly reader: FilesReader) {}

  async execute({ organizationId: org, page: request, q }: ListFilesQuery): Promise<CursorPage<FileObjectResponse>> {
    const page = await paginateListing<FileRow>(request, q, {
      createdAt: (f) => f.createdAt,
      id: (f) => f.id,
      page: (cursor, direction, take) => this.reader.page(org, cursor, direction, take),
      search: (text, offset, count) => this.reader.search(org, text, offset, count),
      count: (text) => this.reader.count(org, text),
    });
    return { ...page, data: page.data.map(toFileObject) };
  }
}

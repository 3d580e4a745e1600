import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  CursorPageWithIds,
  CursorRequest,
  encodeCursor,
  isUuid,
  paginateListing,
  ValidationFailedError,
  withIdCursorFields,
} from '@larder/kernel';
import { FileRow, FilesReader } from '@larder/projections/files/files.reader';
import { FileObjectResponse, toFileObject } from '../../file.response';
import { ListFilesQuery } from './list-files.query';

/**
 * Newest first; with `q`, best fuzzy matches first (cursors carry the rank). The page answers in
 * Mixedbread's shape and OpenAI's at once, and `after`/`before` take a cursor or (as OpenAI's client
 * pages) a file id of the listing.
 */
@QueryHandler(ListFilesQuery)
export class ListFilesHandler implements IQueryHandler<ListFilesQuery, CursorPageWithIds<FileObjectResponse>> {
  constructor(private readonly reader: FilesReader) {}

  async execute({
    organizationId: org,
    page: request,
    q,
  }: ListFilesQuery): Promise<CursorPageWithIds<FileObjectResponse>> {
    const page = await paginateListing<FileRow>(await this.idsAsCursors(org, request, q), q, {
      createdAt: (f) => f.createdAt,
      id: (f) => f.id,
      page: (cursor, direction, take) => this.reader.page(org, cursor, direction, take),
      search: (text, offset, count) => this.reader.search(org, text, offset, count),
      count: (text) => this.reader.count(org, text),
    });
    return withIdCursorFields({ ...page, data: page.data.map(toFileObject) }, (f) => f.id);
  }

  /** An `after`/`before` that is a file id becomes the cursor of that file (a 422 when it names none of the listing). */
  private async idsAsCursors(org: string, request: CursorRequest, q: string | undefined): Promise<CursorRequest> {
    const out = { ...request };
    for (const field of ['after', 'before'] as const) {
      const id = request[field];
      if (!id || !isUuid(id)) continue;
      const row = q ? null : await this.reader.get(org, id);
      if (!row) {
        const msg = q
          ? 'a listing with q pages with the cursors it answers, not with file ids'
          : `'${id}' is not a file of this listing`;
        throw new ValidationFailedError([{ loc: ['query', field], msg, type: 'value_error', input: id }]);
      }
      out[field] = encodeCursor({ c: row.createdAt.toISOString(), id: row.id });
    }
    return out;
  }
}

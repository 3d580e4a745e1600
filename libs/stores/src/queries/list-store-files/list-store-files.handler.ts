import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorPage, filterTargets, paginateByCursor, parseFilters, ValidationFailedError } from '@larder/kernel';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFilesWriter } from '../../store-files.writer';
import { ContentUrls } from '../../content-urls';
import { StoreFileResponse } from '../../store.response';
import { ListStoreFilesQuery } from './list-store-files.query';

/** Newest first. `list` never grants content: each `content_url` is there only for a key that may read the store. */
@QueryHandler(ListStoreFilesQuery)
export class ListStoreFilesHandler implements IQueryHandler<ListStoreFilesQuery, CursorPage<StoreFileResponse>> {
  constructor(
    private readonly storeFiles: StoreFilesWriter,
    private readonly reader: StoreFilesReader,
    private readonly contentUrls: ContentUrls,
  ) {}

  async execute(q: ListStoreFilesQuery): Promise<CursorPage<StoreFileResponse>> {
    const filter = parseFilters(q.metadataFilter, ['body', 'metadata_filter']);
    if (filterTargets(filter).has('chunk')) {
      throw new ValidationFailedError([
        {
          loc: ['body', 'metadata_filter'],
          msg: 'generated_metadata keys address chunks; the file list filters on file metadata only',
          type: 'value_error',
        },
      ]);
    }
    const query = { statuses: q.statuses, filter, q: q.q };
    const s = await this.storeFiles.resolveStore(q.organizationId, q.storeIdentifier);
    const page = await paginateByCursor<StoreFileRow>(
      q.paging,
      (f) => ({ c: f.createdAt.toISOString(), id: f.fileId }),
      ({ cursor, direction, take }) =>
        this.reader.page(s.id, query, cursor as { c: string; id: string } | null, direction, take),
      () => this.reader.count(s.id, query),
    );
    return { ...page, data: page.data.map((f) => this.contentUrls.respond(f, q.viewer)) };
  }
}

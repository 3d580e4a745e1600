import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { IdCursorPage, paginateByIdCursor } from '@larder/kernel';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFilesWriter } from '../../../store-files.writer';
import { StoreFileBatchesWriter } from '../../../store-file-batches.writer';
import { larderStatuses, toVectorStoreFile, VectorStoreFileResponse } from '../../vector-store.response';
import { ListVectorStoreFilesQuery } from './list-vector-store-files.query';

/** A store's files (or a batch's), by creation time, optionally of one OpenAI status. */
@QueryHandler(ListVectorStoreFilesQuery)
export class ListVectorStoreFilesHandler implements IQueryHandler<
  ListVectorStoreFilesQuery,
  IdCursorPage<VectorStoreFileResponse>
> {
  constructor(
    private readonly storeFiles: StoreFilesWriter,
    private readonly batches: StoreFileBatchesWriter,
    private readonly reader: StoreFilesReader,
  ) {}

  async execute({
    organizationId,
    vectorStoreId,
    paging,
    status,
    batchId,
  }: ListVectorStoreFilesQuery): Promise<IdCursorPage<VectorStoreFileResponse>> {
    const s = await this.storeFiles.resolveStore(organizationId, vectorStoreId);
    const fileIds = batchId ? (await this.batches.get(organizationId, s.id, batchId)).fileIds : null;
    const query = { statuses: status ? larderStatuses(status) : null, fileIds };
    const page = await paginateByIdCursor<StoreFileRow>(
      paging,
      (f) => f.fileId,
      (q) => this.reader.pageById(s.id, query, q),
    );
    return { ...page, data: page.data.map(toVectorStoreFile) };
  }
}

import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CHUNK_INDEX, ChunkIndex } from '@larder/chunk-index';
import { StoreFilesWriter } from '../../store-files.writer';
import { ContentUrls } from '../../content-urls';
import { StoreFileResponse } from '../../store.response';
import { GetStoreFileQuery } from './get-store-file.query';

@QueryHandler(GetStoreFileQuery)
export class GetStoreFileHandler implements IQueryHandler<GetStoreFileQuery, StoreFileResponse> {
  constructor(
    private readonly storeFiles: StoreFilesWriter,
    private readonly contentUrls: ContentUrls,
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
  ) {}

  async execute(q: GetStoreFileQuery): Promise<StoreFileResponse> {
    const f = await this.storeFiles.get(q.organizationId, q.storeIdentifier, q.fileIdentifier);
    if (q.chunks === undefined) return this.contentUrls.respond(f, q.viewer);
    // the `stores` position is taken after the row was read, so the chunks are at least as new as it
    await this.storeFiles.chunkIndexCaughtUp();
    return this.contentUrls.respond(f, q.viewer, await this.index.getChunks(f.storeId, f.fileId, q.chunks));
  }
}

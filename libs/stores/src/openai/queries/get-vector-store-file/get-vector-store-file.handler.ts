import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StoreFilesWriter } from '../../../store-files.writer';
import { toVectorStoreFile, VectorStoreFileResponse } from '../../vector-store.response';
import { GetVectorStoreFileQuery } from './get-vector-store-file.query';

@QueryHandler(GetVectorStoreFileQuery)
export class GetVectorStoreFileHandler implements IQueryHandler<GetVectorStoreFileQuery, VectorStoreFileResponse> {
  constructor(private readonly storeFiles: StoreFilesWriter) {}

  async execute(q: GetVectorStoreFileQuery): Promise<VectorStoreFileResponse> {
    return toVectorStoreFile(await this.storeFiles.get(q.organizationId, q.vectorStoreId, q.fileId));
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { FilesReader } from '@larder/projections/files/files.reader';
import { FileObjectResponse, toFileObject } from '../../file.response';
import { GetFileQuery } from './get-file.query';

@QueryHandler(GetFileQuery)
export class GetFileHandler implements IQueryHandler<GetFileQuery, FileObjectResponse> {
  constructor(private readonly reader: FilesReader) {}

  async execute(q: GetFileQuery): Promise<FileObjectResponse> {
    const row = await this.reader.get(q.organizationId, q.fileId);
    if (!row) throw new NotFoundError(`File ${q.fileId} not found`);
    return toFileObject(row);
  }
}

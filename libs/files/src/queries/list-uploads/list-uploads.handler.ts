import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { FileUploadsReader } from '@larder/projections/file-uploads/file-uploads.reader';
import { toUploadObject, UploadObject } from '../../upload.response';
import { ListUploadsQuery } from './list-uploads.query';

/** The organization's uploads in progress, newest first. */
@QueryHandler(ListUploadsQuery)
export class ListUploadsHandler implements IQueryHandler<ListUploadsQuery, { data: UploadObject[] }> {
  constructor(private readonly reader: FileUploadsReader) {}

  async execute(q: ListUploadsQuery): Promise<{ data: UploadObject[] }> {
    return { data: (await this.reader.inProgress(q.organizationId)).map(toUploadObject) };
  }
}

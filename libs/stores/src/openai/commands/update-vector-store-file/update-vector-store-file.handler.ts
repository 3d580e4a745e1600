import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFilesWriter } from '../../../store-files.writer';
import { updateStoreFileMetadata } from '../../../commands/update-store-file/reembed-for-metadata';
import { toVectorStoreFile, VectorStoreFileResponse } from '../../vector-store.response';
import { UpdateVectorStoreFileCommand } from './update-vector-store-file.command';

/** Replaces the store file's metadata, as `PATCH /v1/stores/{id}/files/{file}` does (filters see it at once, nothing is re-embedded). */
@CommandHandler(UpdateVectorStoreFileCommand)
export class UpdateVectorStoreFileHandler implements ICommandHandler<
  UpdateVectorStoreFileCommand,
  VectorStoreFileResponse
> {
  constructor(private readonly writer: StoreFilesWriter) {}

  async execute(c: UpdateVectorStoreFileCommand): Promise<VectorStoreFileResponse> {
    return toVectorStoreFile(
      await updateStoreFileMetadata(this.writer, c.organizationId, c.actor, c.vectorStoreId, c.fileId, c.attributes),
    );
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFilesWriter } from '../../store-files.writer';
import { DeleteStoreFileCommand } from './delete-store-file.command';

export interface StoreFileDeletedResponse {
  id: string;
  deleted: true;
  object: 'store.file';
}

/** Removes a file from the store (the organization file stays). */
@CommandHandler(DeleteStoreFileCommand)
export class DeleteStoreFileHandler implements ICommandHandler<DeleteStoreFileCommand, StoreFileDeletedResponse> {
  constructor(private readonly writer: StoreFilesWriter) {}

  async execute(c: DeleteStoreFileCommand): Promise<StoreFileDeletedResponse> {
    const f = await this.writer.get(c.organizationId, c.storeIdentifier, c.fileIdentifier, { writable: true });
    await this.writer.decide(
      {
        type: 'RemoveStoreFile',
        storeId: f.storeId,
        organizationId: c.organizationId,
        fileId: f.fileId,
        reason: 'deleted',
      },
      c.actor,
    );
    return { id: f.fileId, deleted: true, object: 'store.file' };
  }
}

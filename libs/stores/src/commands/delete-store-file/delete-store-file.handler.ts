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

  execute(c: DeleteStoreFileCommand): Promise<StoreFileDeletedResponse> {
    return this.writer.remove(c.organizationId, c.actor, c.storeIdentifier, c.fileIdentifier);
  }
}

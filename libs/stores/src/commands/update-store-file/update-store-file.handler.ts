import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFilesWriter } from '../../store-files.writer';
import { updateStoreFileMetadata } from './reembed-for-metadata';
import { ContentUrls } from '../../content-urls';
import { StoreFileResponse } from '../../store.response';
import { UpdateStoreFileCommand } from './update-store-file.command';

/** Replaces a store file's metadata (visible to filters at once, no re-embedding). */
@CommandHandler(UpdateStoreFileCommand)
export class UpdateStoreFileHandler implements ICommandHandler<UpdateStoreFileCommand, StoreFileResponse> {
  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly contentUrls: ContentUrls,
  ) {}

  async execute(c: UpdateStoreFileCommand): Promise<StoreFileResponse> {
    const f = await updateStoreFileMetadata(
      this.writer,
      c.organizationId,
      c.actor,
      c.storeIdentifier,
      c.fileIdentifier,
      c.metadata,
    );
    return this.contentUrls.respond(f, c.viewer);
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFilesWriter } from '../../store-files.writer';
import { IngestionWorker } from '../../ingestion/ingestion.worker';
import { ContentUrls } from '../../content-urls';
import { StoreFileResponse } from '../../store.response';
import { assertMayAttachFile } from '../../authority';
import { AddStoreFileCommand } from './add-store-file.command';

/**
 * Attaches an organization file (an upsert: the same content and options only update metadata).
 * The key needs `read` on the file as well as `write` on the store: whoever can attach a file can
 * read it back through the store.
 */
@CommandHandler(AddStoreFileCommand)
export class AddStoreFileHandler implements ICommandHandler<AddStoreFileCommand, StoreFileResponse> {
  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly worker: IngestionWorker,
    private readonly contentUrls: ContentUrls,
  ) {}

  async execute(c: AddStoreFileCommand): Promise<StoreFileResponse> {
    assertMayAttachFile(c.viewer.scope, c.input.file_id);
    const f = await this.writer.add(c.organizationId, c.actor, c.storeIdentifier, c.input);
    this.worker.nudge();
    return this.contentUrls.respond(f, c.viewer);
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFileAttacher } from './store-file-attacher';
import { IngestionWorker } from '../../ingestion/ingestion.worker';
import { ContentUrls } from '../../content-urls';
import { StoreFileResponse } from '../../store.response';
import { AttachAuthority } from '../../authority';
import { AddStoreFileCommand } from './add-store-file.command';

/**
 * Attaches an organization file (an upsert: the same content and options only update metadata).
 * The key needs `read` on the file (or to have written its content) as well as `write` on the store:
 * whoever can attach a file can read it back through the store.
 */
@CommandHandler(AddStoreFileCommand)
export class AddStoreFileHandler implements ICommandHandler<AddStoreFileCommand, StoreFileResponse> {
  constructor(
    private readonly attacher: StoreFileAttacher,
    private readonly worker: IngestionWorker,
    private readonly contentUrls: ContentUrls,
    private readonly authority: AttachAuthority,
  ) {}

  async execute(c: AddStoreFileCommand): Promise<StoreFileResponse> {
    await this.authority.assertMayAttach(c.viewer.scope, c.actor, c.organizationId, c.input.file_id);
    const f = await this.attacher.add(c.organizationId, c.actor, c.storeIdentifier, c.input);
    this.worker.nudge();
    return this.contentUrls.respond(f, c.viewer);
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { FileWriter } from '../../file.writer';
import { FileObjectResponse } from '../../file.response';
import { resolveMimeType } from '../../mime';
import { ReplaceFileCommand } from './replace-file.command';

/**
 * New content first, then `FileReplaced` (`version` + 1). A refused or failed append deletes the new
 * content; the old content is deleted only once the replace is stored.
 */
@CommandHandler(ReplaceFileCommand)
export class ReplaceFileHandler implements ICommandHandler<ReplaceFileCommand, FileObjectResponse> {
  constructor(private readonly files: FileWriter) {}

  async execute(c: ReplaceFileCommand): Promise<FileObjectResponse> {
    await this.files.mustExist(c.organizationId, c.fileId);
    const mimeType = resolveMimeType(c.mimeType, c.filename);
    const blobKey = this.files.blobKey(c.organizationId, c.fileId);
    const { bytes, sha256 } = await this.files.storeContent(blobKey, c.body, mimeType);
    const description = await this.files.afterContent(blobKey, c.description);
    const decision = await this.files.decide(
      {
        type: 'ReplaceFile',
        fileId: c.fileId,
        organizationId: c.organizationId,
        filename: c.filename,
        mimeType,
        bytes,
        sha256,
        blobKey,
        description,
        now: this.files.clock.now(),
      },
      c.actor,
      blobKey,
    );
    const old = decision.state.replacedBlobKey;
    if (old && old !== blobKey) await this.files.deleteSuperseded(old, decision, `old content of ${c.fileId}`);
    return decision.file!;
  }
}

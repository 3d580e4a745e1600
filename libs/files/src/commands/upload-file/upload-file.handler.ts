import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { UploadedFileInfo } from '@larder/kernel';
import { fileDecider } from '../../file.aggregate';
import { FileWriter } from '../../file.writer';
import { FileObjectResponse } from '../../file.response';
import { resolveMimeType } from '../../mime';
import { UploadFileCommand } from './upload-file.command';

export type UploadedFile = FileObjectResponse & UploadedFileInfo;

/** Content first, then `FileUploaded`; the content is deleted again only when that append fails. */
@CommandHandler(UploadFileCommand)
export class UploadFileHandler implements ICommandHandler<UploadFileCommand, UploadedFile> {
  constructor(private readonly files: FileWriter) {}

  async execute(c: UploadFileCommand): Promise<UploadedFile> {
    const mimeType = resolveMimeType(c.mimeType, c.filename);
    const fileId = this.files.ids.uuid();
    const blobKey = this.files.blobKey(c.organizationId, fileId);
    const { bytes, sha256 } = await this.files.storeContent(blobKey, c.body, mimeType);
    const [purpose, description] = await this.files.afterContent(blobKey, Promise.all([c.purpose, c.description]));
    const { file } = await this.files.decide(
      {
        type: 'UploadFile',
        fileId,
        organizationId: c.organizationId,
        filename: c.filename,
        mimeType,
        bytes,
        sha256,
        blobKey,
        purpose,
        description,
        now: this.files.clock.now(),
      },
      c.actor,
      blobKey,
      // a new id's stream is empty: decided without reading it (were it not, the append at no stream
      // would fail and the retry read it)
      { held: { state: fileDecider.initialState(), revision: -1 } },
    );
    return { ...file!, mimeType, sha256, blobKey };
  }
}

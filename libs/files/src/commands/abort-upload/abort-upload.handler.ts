import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BLOB_STORAGE, BlobStorage } from '@larder/blob-storage';
import { UploadWriter } from '../../upload.writer';
import { AbortUploadCommand } from './abort-upload.command';

export interface UploadAbortedResponse {
  id: string;
  deleted: true;
  object: 'file';
}

/** `MultipartUploadAborted` first; the uploaded parts are deleted once that is stored. */
@CommandHandler(AbortUploadCommand)
export class AbortUploadHandler implements ICommandHandler<AbortUploadCommand, UploadAbortedResponse> {
  private readonly logger = new Logger('Uploads');

  constructor(
    private readonly uploads: UploadWriter,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
  ) {}

  async execute(c: AbortUploadCommand): Promise<UploadAbortedResponse> {
    const u = await this.uploads.mustExist(c.organizationId, c.uploadId);
    const result = await this.uploads.write.run(
      {
        type: 'AbortMultipartUpload',
        uploadId: c.uploadId,
        organizationId: c.organizationId,
        reason: c.reason,
        now: this.uploads.clock.now(),
      },
      { orgId: u.organizationId!, actor: c.actor },
    );
    await this.blobs
      .abortMultipart(u.blobKey!, u.storageUploadId!)
      .catch((e: Error) => this.logger.warn(`parts of upload ${c.uploadId} not deleted: ${e.message}`));
    await this.uploads.write.settle(result.position);
    return { id: c.uploadId, deleted: true, object: 'file' };
  }
}

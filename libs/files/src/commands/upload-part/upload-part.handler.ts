import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BadRequestError, ForbiddenError, NotFoundError, PayloadTooLargeError } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage, BlobTooLargeError, PartInfo } from '@larder/blob-storage';
import { UploadWriter } from '../../upload.writer';
import { PartUrls } from '../../part-urls';
import { UploadPartCommand } from './upload-part.command';

export interface PartReceivedResponse {
  part_number: number;
  etag: string;
}

/** The unauthenticated PUT behind a signed part URL (local-disk storage): stores the part, then `MultipartUploadPartReceived`. */
@CommandHandler(UploadPartCommand)
export class UploadPartHandler implements ICommandHandler<UploadPartCommand, PartReceivedResponse> {
  constructor(
    private readonly uploads: UploadWriter,
    private readonly partUrls: PartUrls,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
  ) {}

  async execute(c: UploadPartCommand): Promise<PartReceivedResponse> {
    const verdict = this.partUrls.verify(c.uploadId, c.partNumber, c.expires, c.signature);
    if (verdict === 'expired')
      throw new ForbiddenError('This part URL has expired; get fresh ones from GET /v1/files/uploads/{upload_id}');
    if (verdict !== 'ok') throw new ForbiddenError('Invalid part URL signature');
    const u = await this.uploads.mustExist(null, c.uploadId).catch(() => null);
    if (!u || u.status !== 'in_progress')
      throw new NotFoundError(`Upload ${c.uploadId} not found or no longer in progress`);
    if (c.partNumber < 1 || c.partNumber > u.partCount)
      throw new BadRequestError(`part number must be between 1 and ${u.partCount}`);
    let part: PartInfo;
    try {
      part = await this.blobs.putPart(u.blobKey!, u.storageUploadId!, c.partNumber, c.body, u.fileSize);
    } catch (err) {
      if (err instanceof BlobTooLargeError) throw new PayloadTooLargeError('part is larger than the whole file');
      throw err;
    }
    const result = await this.uploads.write.run(
      {
        type: 'ReceivePart',
        uploadId: c.uploadId,
        partNumber: c.partNumber,
        etag: part.etag,
        bytes: part.bytes,
        now: this.uploads.clock.now(),
      },
      { orgId: u.organizationId!, actor: 'presigned-url' },
    );
    await this.uploads.write.settle(result.position);
    return { part_number: c.partNumber, etag: part.etag };
  }
}

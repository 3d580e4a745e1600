import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BadRequestError, PayloadTooLargeError, uuidFrom } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage } from '@larder/blob-storage';
import { FILES_CONFIG, FilesConfig } from '../../files.config';
import { FileWriter } from '../../file.writer';
import { UploadWriter } from '../../upload.writer';
import { partRange, PartUrls } from '../../part-urls';
import { UploadCreatedResponse } from '../../upload.response';
import { CreateUploadCommand } from './create-upload.command';

/** Opens the storage's multipart upload, then `MultipartUploadCreated`; a failed append aborts it again. */
@CommandHandler(CreateUploadCommand)
export class CreateUploadHandler implements ICommandHandler<CreateUploadCommand, UploadCreatedResponse> {
  private readonly logger = new Logger('Uploads');

  constructor(
    private readonly uploads: UploadWriter,
    private readonly files: FileWriter,
    private readonly partUrls: PartUrls,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
    @Inject(FILES_CONFIG) private readonly config: FilesConfig,
  ) {}

  async execute(c: CreateUploadCommand): Promise<UploadCreatedResponse> {
    if (c.fileSize > this.config.maxFileBytes)
      throw new PayloadTooLargeError(`file_size exceeds the maximum of ${this.config.maxFileBytes} bytes`);
    if (c.partCount > c.fileSize) throw new BadRequestError('part_count cannot exceed file_size');
    const uploadId = this.files.ids.uuid();
    const fileId = uuidFrom(`larder:upload-file:${uploadId}`);
    const blobKey = this.files.blobKey(c.organizationId, fileId);
    const storageUploadId = await this.blobs.createMultipart(blobKey, c.mimeType);
    const now = this.files.clock.now();
    let result;
    try {
      result = await this.uploads.write.run(
        {
          type: 'CreateMultipartUpload',
          uploadId,
          organizationId: c.organizationId,
          filename: c.filename,
          fileSize: c.fileSize,
          mimeType: c.mimeType,
          partCount: c.partCount,
          blobKey,
          storageUploadId,
          now,
          expiresAt: new Date(now.getTime() + this.config.uploadTtlMs),
          description: c.description,
        },
        { orgId: c.organizationId, actor: c.actor },
      );
    } catch (err) {
      await this.blobs
        .abortMultipart(blobKey, storageUploadId)
        .catch((e: Error) => this.logger.warn(`storage upload of a refused upload not aborted: ${e.message}`));
      throw err;
    }
    // stored: the part URLs come from the decision, not from the read model
    await this.uploads.write.settle(result.position);
    return {
      id: uploadId,
      part_urls: await this.partUrls.for(
        { id: uploadId, blobKey, storageUploadId },
        c.baseUrl,
        partRange(1, c.partCount),
      ),
    };
  }
}

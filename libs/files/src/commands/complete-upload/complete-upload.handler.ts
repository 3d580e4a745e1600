import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BadRequestError, ConflictError, NotFoundError, uuidFrom } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage } from '@larder/blob-storage';
import { checkCompletion } from '../../multipart-upload.aggregate';
import { fileView } from '../../file.aggregate';
import { FileWriter } from '../../file.writer';
import { UploadWriter } from '../../upload.writer';
import { FileObjectResponse, toFileObject } from '../../file.response';
import { CompleteUploadCommand } from './complete-upload.command';

/**
 * Checks the parts, assembles them into the file's content, appends `FileUploaded` (the file id
 * derives from the upload, so a retried completion finds the file stored) and then
 * `MultipartUploadCompleted`. Both appends are facts once stored; late read models only mark the response.
 */
@CommandHandler(CompleteUploadCommand)
export class CompleteUploadHandler implements ICommandHandler<CompleteUploadCommand, FileObjectResponse> {
  constructor(
    private readonly uploads: UploadWriter,
    private readonly files: FileWriter,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
  ) {}

  async execute(c: CompleteUploadCommand): Promise<FileObjectResponse> {
    const u = await this.uploads.mustExist(c.organizationId, c.uploadId);
    if (u.status !== 'in_progress')
      throw new ConflictError(`Upload ${c.uploadId} is ${u.status === 'completed' ? 'already completed' : 'aborted'}`);
    const fileId = uuidFrom(`larder:upload-file:${c.uploadId}`);
    const fileState = await this.files.current(fileId);
    let file: FileObjectResponse | null = null;
    if (fileState.status === 'absent') {
      // Check before assembling anything: every part present, ETags as stored, sizes adding up.
      const local = (await this.blobs.presignPart(u.blobKey!, u.storageUploadId!, 1, 60)) === null;
      checkCompletion(u, c.parts, local);
      const sorted = [...c.parts].sort((a, b) => a.partNumber - b.partNumber);
      const stored = await this.blobs.completeMultipart(u.blobKey!, u.storageUploadId!, sorted);
      if (stored.bytes !== u.fileSize) {
        await this.blobs.delete(u.blobKey!).catch(() => undefined);
        throw new BadRequestError(`the parts hold ${stored.bytes} bytes but file_size is ${u.fileSize}`);
      }
      const decision = await this.files.decide(
        {
          type: 'UploadFile',
          fileId,
          organizationId: c.organizationId,
          uploadId: c.uploadId,
          filename: u.filename!,
          mimeType: u.mimeType!,
          description: u.description,
          bytes: stored.bytes,
          sha256: stored.sha256,
          blobKey: u.blobKey!,
          now: this.files.clock.now(),
        },
        c.actor,
      );
      file = decision.file;
    } else if (fileState.status === 'present') {
      file = toFileObject(fileView(fileId, fileState));
    }
    const done = await this.uploads.write.run(
      {
        type: 'CompleteMultipartUpload',
        uploadId: c.uploadId,
        organizationId: c.organizationId,
        fileId,
        parts: c.parts,
        verifyLocalParts: false,
        now: this.uploads.clock.now(),
      },
      { orgId: c.organizationId, actor: c.actor },
    );
    await this.uploads.write.settle(done.position);
    if (!file) throw new NotFoundError(`File ${fileId} was deleted while its upload completed`);
    return file;
  }
}

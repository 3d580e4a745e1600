import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { FILE_UPLOADER, FileUploader } from '@larder/kernel';
import { StoreFilesWriter } from '../../store-files.writer';
import { StoreFileAttacher } from '../add-store-file/store-file-attacher';
import { IngestionWorker } from '../../ingestion/ingestion.worker';
import { ContentUrls } from '../../content-urls';
import { StoreFileResponse } from '../../store.response';
import { UploadStoreFileCommand } from './upload-store-file.command';
import { uploadParams } from './upload-store-file.request.dto';

/**
 * Uploads the `file` part as a new organization file (the key's own, so no file scope is checked),
 * then attaches it as `POST …/files` would. A refusal or a bad part before the attach removes the
 * uploaded file again; nothing after the attach's append does.
 */
@CommandHandler(UploadStoreFileCommand)
export class UploadStoreFileHandler implements ICommandHandler<UploadStoreFileCommand, StoreFileResponse> {
  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly attacher: StoreFileAttacher,
    private readonly worker: IngestionWorker,
    private readonly contentUrls: ContentUrls,
    @Inject(FILE_UPLOADER) private readonly uploader: FileUploader,
  ) {}

  async execute(c: UploadStoreFileCommand): Promise<StoreFileResponse> {
    await this.writer.resolveStore(c.organizationId, c.storeIdentifier); // 404 before reading the body
    // the file is recorded only once the rest of the body was read and its parts were taken
    const { result: upload } = await c.body(async (f, fields) => {
      const file = await this.uploader.upload(c.organizationId, c.actor, f.filename, f.mimeType, f.stream, fields);
      try {
        return { file, input: await uploadParams(await fields, file.id) };
      } catch (err) {
        // a refused or bad part: the stored upload is undone
        await this.uploader.remove(c.organizationId, c.actor, file.id).catch(() => undefined);
        throw err;
      }
    });
    const { file, input } = upload;
    try {
      const f = await this.attacher.add(c.organizationId, c.actor, c.storeIdentifier, input);
      this.worker.nudge();
      return this.contentUrls.respond(f, c.viewer);
    } catch (err) {
      // `add` throws only before it appends (a refusal): the file was never attached, so the upload is undone
      await this.uploader.remove(c.organizationId, c.actor, file.id).catch(() => undefined);
      throw err;
    }
  }
}

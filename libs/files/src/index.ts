import { Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { FILE_UPLOADER } from '@larder/kernel';
import { FilesReader } from '@larder/projections/files/files.reader';
import { FileUploadsReader } from '@larder/projections/file-uploads/file-uploads.reader';
import { FileWriter } from './file.writer';
import { UploadWriter } from './upload.writer';
import { PartUrls } from './part-urls';
import { FileUploaderService } from './file-uploader.service';
import { UploadExpirySweeper } from './upload-expiry.sweeper';
import { UploadFileHandler } from './commands/upload-file/upload-file.handler';
import { UploadFileHttpController } from './commands/upload-file/upload-file.http.controller';
import { ReplaceFileHandler } from './commands/replace-file/replace-file.handler';
import { ReplaceFileHttpController } from './commands/replace-file/replace-file.http.controller';
import { DeleteFileHandler } from './commands/delete-file/delete-file.handler';
import { DeleteFileHttpController } from './commands/delete-file/delete-file.http.controller';
import { CreateUploadHandler } from './commands/create-upload/create-upload.handler';
import { CreateUploadHttpController } from './commands/create-upload/create-upload.http.controller';
import { UploadPartHandler } from './commands/upload-part/upload-part.handler';
import { UploadPartHttpController } from './commands/upload-part/upload-part.http.controller';
import { CompleteUploadHandler } from './commands/complete-upload/complete-upload.handler';
import { CompleteUploadHttpController } from './commands/complete-upload/complete-upload.http.controller';
import { AbortUploadHandler } from './commands/abort-upload/abort-upload.handler';
import { AbortUploadHttpController } from './commands/abort-upload/abort-upload.http.controller';
import { GetFileHandler } from './queries/get-file/get-file.handler';
import { GetFileHttpController } from './queries/get-file/get-file.http.controller';
import { ListFilesHandler } from './queries/list-files/list-files.handler';
import { ListFilesHttpController } from './queries/list-files/list-files.http.controller';
import { DownloadFileHandler } from './queries/download-file/download-file.handler';
import { DownloadFileHttpController } from './queries/download-file/download-file.http.controller';
import { ListUploadsHandler } from './queries/list-uploads/list-uploads.handler';
import { ListUploadsHttpController } from './queries/list-uploads/list-uploads.http.controller';
import { GetUploadHandler } from './queries/get-upload/get-upload.handler';
import { GetUploadHttpController } from './queries/get-upload/get-upload.http.controller';

export { FILES_CONFIG } from './files.config';
export type { FilesConfig } from './files.config';
export { UploadExpirySweeper } from './upload-expiry.sweeper';

@Global()
@Module({
  imports: [CqrsModule],
  controllers: [
    // /v1/files/uploads… before /v1/files/:file_id
    CreateUploadHttpController,
    ListUploadsHttpController,
    GetUploadHttpController,
    CompleteUploadHttpController,
    AbortUploadHttpController,
    UploadPartHttpController,
    UploadFileHttpController,
    ListFilesHttpController,
    DownloadFileHttpController,
    GetFileHttpController,
    ReplaceFileHttpController,
    DeleteFileHttpController,
  ],
  providers: [
    FilesReader,
    FileUploadsReader,
    FileWriter,
    UploadWriter,
    PartUrls,
    UploadExpirySweeper,
    FileUploaderService,
    { provide: FILE_UPLOADER, useExisting: FileUploaderService },
    UploadFileHandler,
    ReplaceFileHandler,
    DeleteFileHandler,
    CreateUploadHandler,
    UploadPartHandler,
    CompleteUploadHandler,
    AbortUploadHandler,
    GetFileHandler,
    ListFilesHandler,
    DownloadFileHandler,
    ListUploadsHandler,
    GetUploadHandler,
  ],
  exports: [FILE_UPLOADER],
})
export class FilesModule {}

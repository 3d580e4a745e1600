import { Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { FILE_UPLOADER } from '@larder/kernel';
import { FilesReader } from '@larder/projections/files/files.reader';
import { FileUploadsReader } from '@larder/projections/file-uploads/file-uploads.reader';
import { FileWriter } from './file.writer';
import { UploadWriter } from './uploads/upload.writer';
import { UploadExpirySweeper } from './uploads/upload-expiry.sweeper';
import { UploadsHttpController } from './uploads/uploads.http.controller';
import { UploadPartHttpController } from './uploads/upload-part.http.controller';
import { UploadFileHttpController } from './http/upload-file.http.controller';
import { ReplaceFileHttpController } from './http/replace-file.http.controller';
import { ListFilesHttpController } from './http/list-files.http.controller';
import { GetFileHttpController } from './http/get-file.http.controller';
import { DeleteFileHttpController } from './http/delete-file.http.controller';
import { DownloadFileHttpController } from './http/download-file.http.controller';

export { FILES_CONFIG } from './files.config';
export type { FilesConfig } from './files.config';
export { UploadWriter } from './uploads/upload.writer';

@Global()
@Module({
  imports: [CqrsModule],
  controllers: [
    // /v1/files/uploads… before /v1/files/:file_id
    UploadsHttpController,
    UploadPartHttpController,
    UploadFileHttpController,
    ListFilesHttpController,
    DownloadFileHttpController,
    GetFileHttpController,
    ReplaceFileHttpController,
    DeleteFileHttpController,
  ],
  providers: [FilesReader, FileUploadsReader, FileWriter, UploadWriter, UploadExpirySweeper, { provide: FILE_UPLOADER, useExisting: FileWriter }],
  exports: [FILE_UPLOADER],
})
export class FilesModule {}

import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Readable } from 'stream';
import type { FileUploader, UploadedFileInfo } from '@larder/kernel';
import { FileWriter } from './file.writer';
import { UploadFileCommand } from './commands/upload-file/upload-file.command';
import { UploadedFile } from './commands/upload-file/upload-file.handler';
import { DeleteFileCommand } from './commands/delete-file/delete-file.command';
import { FileDeletedResponse } from './commands/delete-file/delete-file.handler';

/** The FILE_UPLOADER port for the stores context: the files context's own upload and delete commands. */
@Injectable()
export class FileUploaderService implements FileUploader {
  constructor(
    private readonly commands: CommandBus,
    private readonly writer: FileWriter,
  ) {}

  async find(
    organizationId: string,
    fileId: string,
  ): Promise<(UploadedFileInfo & { contentAuthor: string | null }) | null> {
    const { state: s, author } = await this.writer.currentWithAuthor(fileId);
    if (s.status !== 'present' || s.organizationId !== organizationId) return null;
    return {
      id: fileId,
      filename: s.filename!,
      mimeType: s.mimeType!,
      bytes: s.bytes,
      sha256: s.sha256!,
      blobKey: s.blobKey!,
      version: s.version,
      contentAuthor: author,
    };
  }

  async upload(
    organizationId: string,
    actor: string,
    filename: string,
    mimeType: string | undefined,
    body: Readable,
    after?: Promise<unknown>,
  ): Promise<UploadedFileInfo> {
    // `after` rides on the command's purpose, which it awaits between storing the content and recording the file
    const purpose = after?.then(() => undefined);
    purpose?.catch(() => undefined); // awaited by the handler once the content is stored; never an unhandled rejection
    const f: UploadedFile = await this.commands.execute(
      new UploadFileCommand(organizationId, actor, filename, mimeType, body, purpose),
    );
    return {
      id: f.id,
      filename: f.filename,
      mimeType: f.mimeType,
      bytes: f.bytes,
      sha256: f.sha256,
      blobKey: f.blobKey,
      version: f.version,
    };
  }

  remove(organizationId: string, actor: string, fileId: string): Promise<FileDeletedResponse> {
    return this.commands.execute(new DeleteFileCommand(organizationId, actor, fileId));
  }
}

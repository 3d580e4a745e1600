import { Inject, Optional } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { FILE_REFERENCES, FileReferences } from '@larder/kernel';
import { FileWriter } from '../../file.writer';
import { DeleteFileCommand } from './delete-file.command';

export interface FileDeletedResponse {
  id: string;
  deleted: true;
  object: 'file';
}

/** Stores let go of the file first, then `FileDeleted`; the content goes once that is stored. */
@CommandHandler(DeleteFileCommand)
export class DeleteFileHandler implements ICommandHandler<DeleteFileCommand, FileDeletedResponse> {
  constructor(
    private readonly files: FileWriter,
    @Optional() @Inject(FILE_REFERENCES) private readonly references?: FileReferences,
  ) {}

  async execute(c: DeleteFileCommand): Promise<FileDeletedResponse> {
    await this.files.mustExist(c.organizationId, c.fileId);
    // Stores first: once this returns, no store lists the file and no search returns its chunks.
    await this.references?.removeEverywhere(c.organizationId, c.fileId, c.actor);
    const decision = await this.files.decide(
      { type: 'DeleteFile', fileId: c.fileId, organizationId: c.organizationId, now: this.files.clock.now() },
      c.actor,
    );
    if (decision.state.blobKey)
      await this.files.deleteSuperseded(decision.state.blobKey, decision, `content of ${c.fileId}`);
    return { id: c.fileId, deleted: true, object: 'file' };
  }
}

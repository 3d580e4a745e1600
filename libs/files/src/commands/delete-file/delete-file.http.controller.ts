import { Controller, Delete } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { DeleteFileCommand } from './delete-file.command';
import { FileDeletedResponse } from './delete-file.handler';

@Controller('v1/files')
export class DeleteFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** Appends `FileDeleted`, which the stores context uses to remove the file from every store. */
  @Delete(':file_id')
  @RequireScope({ method: 'delete', resourceType: 'file', resourceIdParam: 'file_id' })
  remove(@CurrentPrincipal() p: Principal, @UuidParam('file_id') id: string): Promise<FileDeletedResponse> {
    return this.commands.execute(new DeleteFileCommand(p.organizationId, p.apiKeyId, id));
  }
}

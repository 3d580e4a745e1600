import { Controller, Delete, Param } from '@nestjs/common';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { FileWriter } from '../file.writer';

@Controller('v1/files')
export class DeleteFileHttpController {
  constructor(private readonly files: FileWriter) {}

  /** Appends `FileDeleted`, which the stores context uses to remove the file from every store. */
  @Delete(':file_id')
  @RequireScope({ method: 'delete', resourceType: 'file', resourceIdParam: 'file_id' })
  remove(@CurrentPrincipal() p: Principal, @Param('file_id') id: string) {
    return this.files.remove(p.organizationId, p.apiKeyId, id);
  }
}

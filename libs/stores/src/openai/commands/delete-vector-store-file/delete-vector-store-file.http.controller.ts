import { Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { DeleteStoreFileCommand } from '../../../commands/delete-store-file/delete-store-file.command';
import type { StoreFileDeletedResponse } from '../../../commands/delete-store-file/delete-store-file.handler';

/** Removes the file from the store through the Mixedbread route's own command (the uploaded file stays). */
@Controller('v1/vector_stores/:vector_store_id/files')
export class DeleteVectorStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':file_id')
  @RequireScope({ method: 'delete', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
  ): Promise<{ id: string; object: 'vector_store.file.deleted'; deleted: true }> {
    const r: StoreFileDeletedResponse = await this.commands.execute(
      new DeleteStoreFileCommand(p.organizationId, p.apiKeyId, id, fileId),
    );
    return { id: r.id, object: 'vector_store.file.deleted', deleted: true };
  }
}

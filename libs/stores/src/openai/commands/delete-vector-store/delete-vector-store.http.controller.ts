import { Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { DeleteStoreCommand } from '../../../commands/delete-store/delete-store.command';
import type { StoreDeletedResponse } from '../../../commands/delete-store/delete-store.handler';

/** Deletes through the Mixedbread route's own command; only the answer's shape differs. */
@Controller('v1/vector_stores')
export class DeleteVectorStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':vector_store_id')
  @RequireScope({ method: 'delete', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
  ): Promise<{ id: string; object: 'vector_store.deleted'; deleted: true }> {
    const r: StoreDeletedResponse = await this.commands.execute(
      new DeleteStoreCommand(p.organizationId, p.apiKeyId, id),
    );
    return { id: r.id, object: 'vector_store.deleted', deleted: true };
  }
}

import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreFileBatchResponse } from '../../vector-store.response';
import { CancelVectorStoreFileBatchCommand } from './cancel-vector-store-file-batch.command';

@Controller('v1/vector_stores/:vector_store_id/file_batches')
export class CancelVectorStoreFileBatchHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':batch_id/cancel')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  cancel(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
  ): Promise<VectorStoreFileBatchResponse> {
    return this.commands.execute(new CancelVectorStoreFileBatchCommand(p.organizationId, p.apiKeyId, id, batchId));
  }
}

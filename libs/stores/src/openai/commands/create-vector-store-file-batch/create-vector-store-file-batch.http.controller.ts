import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreFileBatchResponse } from '../../vector-store.response';
import { CreateVectorStoreFileBatchCommand } from './create-vector-store-file-batch.command';
import { CreateVectorStoreFileBatchRequestDto } from './create-vector-store-file-batch.request.dto';

@Controller('v1/vector_stores/:vector_store_id/file_batches')
export class CreateVectorStoreFileBatchHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** `write` on the store here; `read` on each file is checked by the handler. */
  @Post()
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  create(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Body() body: CreateVectorStoreFileBatchRequestDto,
  ): Promise<VectorStoreFileBatchResponse> {
    return this.commands.execute(
      new CreateVectorStoreFileBatchCommand(p.organizationId, p.apiKeyId, p.scope, id, body),
    );
  }
}

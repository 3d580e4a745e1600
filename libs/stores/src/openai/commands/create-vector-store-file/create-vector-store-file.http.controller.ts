import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreFileResponse } from '../../vector-store.response';
import { CreateVectorStoreFileCommand } from './create-vector-store-file.command';
import { CreateVectorStoreFileRequestDto } from './create-vector-store-file.request.dto';

@Controller('v1/vector_stores/:vector_store_id/files')
export class CreateVectorStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** `write` on the store here; `read` on the file is checked by the handler. */
  @Post()
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  create(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Body() body: CreateVectorStoreFileRequestDto,
  ): Promise<VectorStoreFileResponse> {
    return this.commands.execute(new CreateVectorStoreFileCommand(p.organizationId, p.apiKeyId, p.scope, id, body));
  }
}

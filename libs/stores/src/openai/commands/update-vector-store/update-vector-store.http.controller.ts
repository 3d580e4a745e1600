import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreResponse } from '../../vector-store.response';
import { UpdateVectorStoreCommand } from './update-vector-store.command';
import { UpdateVectorStoreRequestDto } from './update-vector-store.request.dto';

@Controller('v1/vector_stores')
export class UpdateVectorStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** OpenAI updates with `POST /v1/vector_stores/{id}`. */
  @Post(':vector_store_id')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  update(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Body() body: UpdateVectorStoreRequestDto,
  ): Promise<VectorStoreResponse> {
    return this.commands.execute(new UpdateVectorStoreCommand(p.organizationId, p.apiKeyId, id, body));
  }
}

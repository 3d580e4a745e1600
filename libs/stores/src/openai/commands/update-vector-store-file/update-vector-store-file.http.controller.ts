import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreFileResponse } from '../../vector-store.response';
import { UpdateVectorStoreFileCommand } from './update-vector-store-file.command';
import { UpdateVectorStoreFileRequestDto } from './update-vector-store-file.request.dto';

@Controller('v1/vector_stores/:vector_store_id/files')
export class UpdateVectorStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':file_id')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  update(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
    @Body() body: UpdateVectorStoreFileRequestDto,
  ): Promise<VectorStoreFileResponse> {
    return this.commands.execute(
      new UpdateVectorStoreFileCommand(p.organizationId, p.apiKeyId, id, fileId, body.attributes),
    );
  }
}

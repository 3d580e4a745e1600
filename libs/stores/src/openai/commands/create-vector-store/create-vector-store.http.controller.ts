import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreResponse } from '../../vector-store.response';
import { CreateVectorStoreCommand } from './create-vector-store.command';
import { CreateVectorStoreRequestDto } from './create-vector-store.request.dto';

@Controller('v1/vector_stores')
export class CreateVectorStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** `create` on `store`; with `file_ids`, `read` on each file too (checked by the handler). */
  @Post()
  @HttpCode(200)
  @RequireScope({ method: 'create', resourceType: 'store' })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateVectorStoreRequestDto): Promise<VectorStoreResponse> {
    return this.commands.execute(new CreateVectorStoreCommand(p.organizationId, p.apiKeyId, p.scope, body));
  }
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { StoreResponse } from '../../store.response';
import { CreateStoreCommand } from './create-store.command';
import { CreateStoreRequestDto } from './create-store.request.dto';

@Controller('v1/stores')
export class CreateStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'store' })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateStoreRequestDto): Promise<StoreResponse> {
    return this.commands.execute(new CreateStoreCommand(p.organizationId, p.apiKeyId, p.scope, body));
  }
}

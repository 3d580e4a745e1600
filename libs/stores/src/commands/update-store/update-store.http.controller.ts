import { Body, Controller, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute } from '@larder/kernel';
import { StoreResponse } from '../../store.response';
import { UpdateStoreCommand } from './update-store.command';
import { UpdateStoreRequestDto } from './update-store.request.dto';

@Controller('v1/stores')
export class UpdateStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('write', Put(':store_identifier'))
  update(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') id: string,
    @Body() body: UpdateStoreRequestDto,
  ): Promise<StoreResponse> {
    return this.commands.execute(new UpdateStoreCommand(p.organizationId, p.apiKeyId, id, body));
  }
}

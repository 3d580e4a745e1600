import { Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute } from '@larder/kernel';
import { DeleteStoreCommand } from './delete-store.command';
import { StoreDeletedResponse } from './delete-store.handler';

@Controller('v1/stores')
export class DeleteStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('delete', Delete(':store_identifier'))
  remove(@CurrentPrincipal() p: Principal, @Param('store_identifier') id: string): Promise<StoreDeletedResponse> {
    return this.commands.execute(new DeleteStoreCommand(p.organizationId, p.apiKeyId, id));
  }
}

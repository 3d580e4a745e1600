import { Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, SegmentsParam, StoreRoute } from '@larder/kernel';
import { DeleteStoreFileCommand } from './delete-store-file.command';
import { StoreFileDeletedResponse } from './delete-store-file.handler';

@Controller('v1/stores/:store_identifier/files')
export class DeleteStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('delete', Delete('*file_identifier'))
  remove(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @SegmentsParam('file_identifier') fid: string,
  ): Promise<StoreFileDeletedResponse> {
    return this.commands.execute(new DeleteStoreFileCommand(p.organizationId, p.apiKeyId, sid, fid));
  }
}

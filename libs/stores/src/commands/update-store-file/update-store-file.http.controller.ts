import { Body, Controller, Param, Patch, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, Principal, SegmentsParam, StoreRoute } from '@larder/kernel';
import { StoreFileResponse } from '../../store.response';
import { UpdateStoreFileCommand } from './update-store-file.command';
import { UpdateStoreFileRequestDto } from './update-store-file.request.dto';

@Controller('v1/stores/:store_identifier/files')
export class UpdateStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('write', Patch('*file_identifier'))
  update(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @SegmentsParam('file_identifier') fid: string,
    @Body() body: UpdateStoreFileRequestDto,
    @Req() req: Request,
  ): Promise<StoreFileResponse> {
    return this.commands.execute(
      new UpdateStoreFileCommand(
        p.organizationId,
        p.apiKeyId,
        { scope: p.scope, baseUrl: baseUrlOf(req) },
        sid,
        fid,
        body.metadata,
      ),
    );
  }
}

import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, Principal, StoreRoute } from '@larder/kernel';
import { StoreFileResponse } from '../../store.response';
import { AddStoreFileCommand } from './add-store-file.command';
import { AddStoreFileRequestDto } from './add-store-file.request.dto';

@Controller('v1/stores/:store_identifier/files')
export class AddStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** `write` on the store here; `read` on the file is checked by the handler. */
  @StoreRoute('write', Post(), HttpCode(201))
  add(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Body() body: AddStoreFileRequestDto,
    @Req() req: Request,
  ): Promise<StoreFileResponse> {
    return this.commands.execute(
      new AddStoreFileCommand(p.organizationId, p.apiKeyId, { scope: p.scope, baseUrl: baseUrlOf(req) }, sid, body),
    );
  }
}

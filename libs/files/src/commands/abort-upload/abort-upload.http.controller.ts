import { Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { AbortUploadCommand } from './abort-upload.command';
import { UploadAbortedResponse } from './abort-upload.handler';

@Controller('v1/files/uploads')
export class AbortUploadHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':upload_id/abort')
  @HttpCode(200)
  @RequireScope({ method: 'delete', resourceType: 'file' })
  abort(@CurrentPrincipal() p: Principal, @UuidParam('upload_id') id: string): Promise<UploadAbortedResponse> {
    return this.commands.execute(new AbortUploadCommand(p.organizationId, p.apiKeyId, id));
  }
}

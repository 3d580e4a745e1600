import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { FileObjectResponse } from '../../file.response';
import { CompleteUploadCommand } from './complete-upload.command';
import { CompleteUploadRequestDto } from './complete-upload.request.dto';

@Controller('v1/files/uploads')
export class CompleteUploadHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':upload_id/complete')
  @HttpCode(200)
  @RequireScope({ method: 'create', resourceType: 'file' })
  complete(
    @CurrentPrincipal() p: Principal,
    @UuidParam('upload_id') id: string,
    @Body() body: CompleteUploadRequestDto,
  ): Promise<FileObjectResponse> {
    return this.commands.execute(
      new CompleteUploadCommand(
        p.organizationId,
        p.apiKeyId,
        id,
        body.parts.map((x) => ({ partNumber: x.part_number, etag: x.etag })),
      ),
    );
  }
}

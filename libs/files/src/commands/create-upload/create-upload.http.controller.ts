import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { UploadCreatedResponse } from '../../upload.response';
import { CreateUploadCommand } from './create-upload.command';
import { CreateUploadRequestDto } from './create-upload.request.dto';

/** Multipart (presigned) uploads: create, part URLs, complete, abort. */
@Controller('v1/files/uploads')
export class CreateUploadHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'file' })
  create(
    @CurrentPrincipal() p: Principal,
    @Body() body: CreateUploadRequestDto,
    @Req() req: Request,
  ): Promise<UploadCreatedResponse> {
    return this.commands.execute(
      new CreateUploadCommand(
        p.organizationId,
        p.apiKeyId,
        body.filename,
        body.file_size,
        body.mime_type,
        body.part_count ?? 1,
        baseUrlOf(req),
        body.description?.trim() || null,
      ),
    );
  }
}

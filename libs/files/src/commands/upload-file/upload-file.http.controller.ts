import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { CurrentPrincipal, Principal, RequireScope, withMultipartFile } from '@larder/kernel';
import { FileObjectResponse } from '../../file.response';
import { describedBy } from '../../file-description';
import { UploadFileCommand } from './upload-file.command';
import { UploadedFile } from './upload-file.handler';

@Controller('v1/files')
export class UploadFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** multipart/form-data with a `file` part, streamed into blob storage, and an optional `description` text part. */
  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'file' })
  upload(@CurrentPrincipal() p: Principal, @Req() req: Request): Promise<FileObjectResponse> {
    return withMultipartFile(req, async (f) => {
      const uploaded: UploadedFile = await this.commands.execute(new UploadFileCommand(p.organizationId, p.apiKeyId, f.filename, f.mimeType, f.stream, describedBy(f.fields)));
      const { id, filename, bytes, mime_type, version, created_at, updated_at } = uploaded;
      return { id, filename, bytes, mime_type, version, created_at, updated_at };
    });
  }
}

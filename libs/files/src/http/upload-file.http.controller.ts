import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentPrincipal, Principal, RequireScope, withMultipartFile } from '@larder/kernel';
import { FileWriter } from '../file.writer';
import { FileObjectResponse } from '../file.response';
import { resolveMimeType } from '../mime';

@Controller('v1/files')
export class UploadFileHttpController {
  constructor(private readonly files: FileWriter) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'file' })
  upload(@CurrentPrincipal() p: Principal, @Req() req: Request): Promise<FileObjectResponse> {
    return withMultipartFile(req, async (f) => {
      const { id, filename, bytes, mime_type, version, created_at, updated_at } = await this.files.upload(p.organizationId, p.apiKeyId, f.filename, resolveMimeType(f.mimeType, f.filename), f.stream);
      return { id, filename, bytes, mime_type, version, created_at, updated_at };
    });
  }
}

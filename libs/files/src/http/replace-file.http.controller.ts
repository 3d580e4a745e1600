import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentPrincipal, NotFoundError, Principal, RequireScope, withMultipartFile } from '@larder/kernel';
import { FileWriter } from '../file.writer';
import { FileObjectResponse } from '../file.response';
import { resolveMimeType } from '../mime';

@Controller('v1/files')
export class ReplaceFileHttpController {
  constructor(private readonly files: FileWriter) {}

  /** Replaces the content; `version` goes up by one. */
  @Post(':file_id')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'file', resourceIdParam: 'file_id' })
  async replace(@CurrentPrincipal() p: Principal, @Param('file_id') id: string, @Req() req: Request): Promise<FileObjectResponse> {
    if (!(await this.files.reader.get(p.organizationId, id))) {
      req.resume();
      throw new NotFoundError(`File ${id} not found`);
    }
    return withMultipartFile(req, (f) => this.files.replace(p.organizationId, p.apiKeyId, id, f.filename, resolveMimeType(f.mimeType, f.filename), f.stream));
  }
}

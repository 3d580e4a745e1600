import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { UploadWriter } from './upload.writer';
import { CreateUploadRequestDto } from './create-upload.request.dto';
import { CompleteUploadRequestDto } from './complete-upload.request.dto';
import { baseUrlOf } from '@larder/kernel';

/** Multipart (presigned) uploads, contract §5.2. */
@Controller('v1/files/uploads')
export class UploadsHttpController {
  constructor(private readonly uploads: UploadWriter) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'file' })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateUploadRequestDto, @Req() req: Request) {
    return this.uploads.create(p.organizationId, p.apiKeyId, { ...body, part_count: body.part_count ?? 1 }, baseUrlOf(req));
  }

  @Get()
  @RequireScope({ method: 'list', resourceType: 'file' })
  list(@CurrentPrincipal() p: Principal) {
    return this.uploads.list(p.organizationId);
  }

  @Get(':upload_id')
  @RequireScope({ method: 'read', resourceType: 'file' })
  get(@CurrentPrincipal() p: Principal, @Param('upload_id') id: string, @Req() req: Request) {
    return this.uploads.detail(p.organizationId, id, baseUrlOf(req));
  }

  @Post(':upload_id/complete')
  @HttpCode(200)
  @RequireScope({ method: 'create', resourceType: 'file' })
  complete(@CurrentPrincipal() p: Principal, @Param('upload_id') id: string, @Body() body: CompleteUploadRequestDto) {
    return this.uploads.complete(p.organizationId, p.apiKeyId, id, body.parts);
  }

  @Post(':upload_id/abort')
  @HttpCode(200)
  @RequireScope({ method: 'delete', resourceType: 'file' })
  abort(@CurrentPrincipal() p: Principal, @Param('upload_id') id: string) {
    return this.uploads.abort(p.organizationId, p.apiKeyId, id);
  }
}

import { Controller, Get, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { UploadDetail } from '../../upload.response';
import { GetUploadQuery } from './get-upload.query';

@Controller('v1/files/uploads')
export class GetUploadHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':upload_id')
  @RequireScope({ method: 'read', resourceType: 'file' })
  get(
    @CurrentPrincipal() p: Principal,
    @UuidParam('upload_id') id: string,
    @Req() req: Request,
  ): Promise<UploadDetail> {
    return this.queries.execute(new GetUploadQuery(p.organizationId, id, baseUrlOf(req)));
  }
}

import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { UploadObject } from '../../upload.response';
import { ListUploadsQuery } from './list-uploads.query';

@Controller('v1/files/uploads')
export class ListUploadsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'list', resourceType: 'file' })
  list(@CurrentPrincipal() p: Principal): Promise<{ data: UploadObject[] }> {
    return this.queries.execute(new ListUploadsQuery(p.organizationId));
  }
}

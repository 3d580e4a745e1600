import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { FileObjectResponse } from '../../file.response';
import { GetFileQuery } from './get-file.query';

@Controller('v1/files')
export class GetFileHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':file_id')
  @RequireScope({ method: 'read', resourceType: 'file', resourceIdParam: 'file_id' })
  get(@CurrentPrincipal() p: Principal, @UuidParam('file_id') id: string): Promise<FileObjectResponse> {
    return this.queries.execute(new GetFileQuery(p.organizationId, id));
  }
}

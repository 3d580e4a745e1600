import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, CursorPageWithIds, Principal, RequireScope } from '@larder/kernel';
import { FileObjectResponse } from '../../file.response';
import { ListFilesQuery } from './list-files.query';
import { ListFilesRequestDto } from './list-files.request.dto';

@Controller('v1/files')
export class ListFilesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope({ method: 'list', resourceType: 'file' })
  list(
    @CurrentPrincipal() p: Principal,
    @Query() query: ListFilesRequestDto,
  ): Promise<CursorPageWithIds<FileObjectResponse>> {
    const { q, ...page } = query;
    return this.queries.execute(new ListFilesQuery(p.organizationId, page, q?.trim() || undefined));
  }
}

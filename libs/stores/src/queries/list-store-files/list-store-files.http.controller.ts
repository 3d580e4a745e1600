import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, CursorPage, Principal, RequireScope } from '@larder/kernel';
import { StoreFileResponse } from '../../store.response';
import { ListStoreFilesQuery } from './list-store-files.query';
import { ListStoreFilesDeprecatedRequestDto, ListStoreFilesRequestDto } from './list-store-files.request.dto';

@Controller('v1/stores/:store_identifier/files')
export class ListStoreFilesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('list')
  @HttpCode(200)
  @RequireScope({ method: 'list', resourceType: 'store', resourceIdParam: 'store_identifier' })
  list(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Body() body: ListStoreFilesRequestDto, @Req() req: Request): Promise<CursorPage<StoreFileResponse>> {
    return this.queries.execute(new ListStoreFilesQuery(p.organizationId, { scope: p.scope, baseUrl: baseUrlOf(req) }, sid, body, body.statuses ?? null, body.metadata_filter, body.q?.trim() || null));
  }

  /** Deprecated listing (query string). */
  @Get()
  @RequireScope({ method: 'list', resourceType: 'store', resourceIdParam: 'store_identifier' })
  listDeprecated(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Query() query: ListStoreFilesDeprecatedRequestDto,
    @Req() req: Request,
  ): Promise<CursorPage<StoreFileResponse>> {
    return this.queries.execute(new ListStoreFilesQuery(p.organizationId, { scope: p.scope, baseUrl: baseUrlOf(req) }, sid, query, query.statuses ?? null));
  }
}

import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { baseUrlOf, CurrentPrincipal, CursorPage, Principal, StoreRoute } from '@larder/kernel';
import { StoreFileResponse } from '../../store.response';
import { ListStoreFilesQuery } from './list-store-files.query';
import { ListStoreFilesDeprecatedRequestDto, ListStoreFilesRequestDto } from './list-store-files.request.dto';

/** RFC 9745 `Deprecation` value of the query-string listing: `@` and the Unix time it was deprecated (2025-01-01T00:00:00Z). */
const DEPRECATED_SINCE = '@1735689600';

@Controller('v1/stores/:store_identifier/files')
export class ListStoreFilesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @StoreRoute('list', Post('list'), HttpCode(200))
  list(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Body() body: ListStoreFilesRequestDto,
    @Req() req: Request,
  ): Promise<CursorPage<StoreFileResponse>> {
    return this.queries.execute(
      new ListStoreFilesQuery(
        p.organizationId,
        { scope: p.scope, baseUrl: baseUrlOf(req) },
        sid,
        body,
        body.statuses ?? null,
        body.metadata_filter,
        body.q?.trim() || null,
      ),
    );
  }

  /**
   * Deprecated listing (query string), as upstream marks it: its answers carry `Deprecation`
   * (RFC 9745: deprecated since 2025-01-01) and a `Link` to the successor, `POST …/files/list`.
   */
  @ApiOperation({
    deprecated: true,
    summary: 'List store files (deprecated: use POST /v1/stores/{store_identifier}/files/list)',
  })
  @StoreRoute('list', Get())
  listDeprecated(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Query() query: ListStoreFilesDeprecatedRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CursorPage<StoreFileResponse>> {
    res.setHeader('Deprecation', DEPRECATED_SINCE);
    res.setHeader('Link', `</v1/stores/${encodeURIComponent(sid)}/files/list>; rel="successor-version"`);
    return this.queries.execute(
      new ListStoreFilesQuery(
        p.organizationId,
        { scope: p.scope, baseUrl: baseUrlOf(req) },
        sid,
        query,
        query.statuses ?? null,
      ),
    );
  }
}

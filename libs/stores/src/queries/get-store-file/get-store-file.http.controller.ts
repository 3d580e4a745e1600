import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, Principal, SegmentsParam, StoreRoute } from '@larder/kernel';
import { StoreFileResponse } from '../../store.response';
import { GetStoreFileQuery } from './get-store-file.query';
import { chunkSelection, GetStoreFileRequestDto } from './get-store-file.request.dto';

@Controller('v1/stores/:store_identifier/files')
export class GetStoreFileHttpController {
  constructor(private readonly queries: QueryBus) {}

  @StoreRoute('read', Get('*file_identifier'))
  get(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @SegmentsParam('file_identifier') fid: string,
    @Query() query: GetStoreFileRequestDto,
    @Req() req: Request,
  ): Promise<StoreFileResponse> {
    const chunks = chunkSelection(query.return_chunks) as number[] | null | undefined; // validated by the DTO
    return this.queries.execute(
      new GetStoreFileQuery(p.organizationId, { scope: p.scope, baseUrl: baseUrlOf(req) }, sid, fid, chunks),
    );
  }
}

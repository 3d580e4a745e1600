import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { baseUrlOf, CurrentPrincipal, Principal, RequireScope, serverTiming, timings } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { SearchFilesQuery } from './search-files.query';
import { SearchFilesRequestDto } from './search-files.request.dto';
import type { SearchFilesResponse } from './search-files.handler';

/** File-level search: the files whose chunks match best, each a `StoreFile` with its score and best chunks. */
@Controller('v1/stores/files')
export class SearchFilesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('search')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async search(
    @CurrentPrincipal() p: Principal,
    @Body() body: SearchFilesRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SearchFilesResponse> {
    const out = await this.queries.execute<SearchFilesQuery, SearchFilesResponse>(
      new SearchFilesQuery(p, body.params(), { scope: p.scope, baseUrl: baseUrlOf(req) }),
    );
    res.setHeader('server-timing', serverTiming(timings()));
    return out;
  }
}

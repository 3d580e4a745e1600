import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { serverTiming, Timing } from '../../search.config';
import { SEARCH_SCOPE } from '../../search-scope';
import { SearchStoresQuery } from './search-stores.query';
import { SearchStoresRequestDto } from './search-stores.request.dto';
import type { SearchStoresResponse } from './search-stores.handler';

/** `X-Mxbai-Tool-Ticket` is accepted and not yet redeemed (chat issue). */
@Controller('v1/stores')
export class SearchStoresHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('search')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async find(
    @CurrentPrincipal() p: Principal,
    @Body() body: SearchStoresRequestDto,
    @Res({ passthrough: true }) res: Response,
    @Headers('x-mxbai-tool-ticket') _ticket?: string,
  ): Promise<SearchStoresResponse> {
    const timing: Timing = {};
    const out = await this.queries.execute<SearchStoresQuery, SearchStoresResponse>(new SearchStoresQuery(p, body.params(), timing));
    res.setHeader('server-timing', serverTiming(timing));
    return out;
  }
}

import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';

/** The stores are named in the body: the service checks `search` (or `read`) on each store it resolves. */
const SEARCH_SCOPE = { method: 'search', resourceType: 'store', checkedPerResource: true } as const;
import { serverTiming, StoreSearchService, Timing } from '../store-search.service';

/**
 * Search over stores (contract §15–§16.3). Bodies are parsed by `search.request.ts` (one parser, one
 * filter compiler for all four). `X-Mxbai-Tool-Ticket` is accepted and not yet redeemed (chat issue).
 */
@Controller('v1/stores')
export class StoreSearchHttpController {
  constructor(private readonly search: StoreSearchService) {}

  @Post('search')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async find(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Res({ passthrough: true }) res: Response, @Headers('x-mxbai-tool-ticket') _ticket?: string) {
    const timing: Timing = {};
    const out = await this.search.search(p, body, timing);
    res.setHeader('server-timing', serverTiming(timing));
    return out;
  }

  @Post('grep')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async grep(@CurrentPrincipal() p: Principal, @Body() body: unknown, @Headers('x-mxbai-tool-ticket') _ticket?: string) {
    return this.search.grep(p, body);
  }

  @Post('list-chunks')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async listChunks(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    return this.search.listChunks(p, body);
  }

  @Post('metadata-facets')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async facets(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    return this.search.metadataFacets(p, body);
  }
}

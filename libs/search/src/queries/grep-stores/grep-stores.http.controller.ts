import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { GrepStoresQuery } from './grep-stores.query';
import { GrepStoresRequestDto } from './grep-stores.request.dto';
import type { GrepStoresResponse } from './grep-stores.handler';

/** `X-Mxbai-Tool-Ticket` is accepted and not yet redeemed (chat issue). */
@Controller('v1/stores')
export class GrepStoresHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('grep')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  grep(@CurrentPrincipal() p: Principal, @Body() body: GrepStoresRequestDto, @Headers('x-mxbai-tool-ticket') _ticket?: string): Promise<GrepStoresResponse> {
    return this.queries.execute(new GrepStoresQuery(p, body.params()));
  }
}

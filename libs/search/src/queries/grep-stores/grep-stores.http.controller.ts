import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { GrepStoresQuery } from './grep-stores.query';
import { GrepStoresRequestDto } from './grep-stores.request.dto';
import type { GrepStoresResponse } from './grep-stores.handler';
import { ToolTickets } from '../../tool-tickets/tool-tickets';

/** `X-Mxbai-Tool-Ticket` is redeemed before the grep runs, as on search. */
@Controller('v1/stores')
export class GrepStoresHttpController {
  constructor(
    private readonly queries: QueryBus,
    private readonly tickets: ToolTickets,
  ) {}

  @Post('grep')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async grep(@CurrentPrincipal() p: Principal, @Body() body: GrepStoresRequestDto, @Headers('x-mxbai-tool-ticket') ticket?: string): Promise<GrepStoresResponse> {
    const params = body.params();
    const as = ticket !== undefined ? await this.tickets.redeem(p, ticket, 'grep') : p;
    return this.queries.execute(new GrepStoresQuery(as, params));
  }
}

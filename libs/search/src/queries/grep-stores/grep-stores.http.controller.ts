import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope, serverTiming, timed, timings } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { GrepStoresQuery } from './grep-stores.query';
import { GrepStoresRequestDto } from './grep-stores.request.dto';
import type { GrepStoresResponse } from './grep-stores.handler';
import { ToolTickets } from '../../tool-tickets/tool-tickets';

/** `X-Mxbai-Tool-Ticket` is redeemed before the grep runs, as on search. `Server-Timing: grep;dur=…` says how long the grep took. */
@Controller('v1/stores')
export class GrepStoresHttpController {
  constructor(
    private readonly queries: QueryBus,
    private readonly tickets: ToolTickets,
  ) {}

  @Post('grep')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async grep(
    @CurrentPrincipal() p: Principal,
    @Body() body: GrepStoresRequestDto,
    @Res({ passthrough: true }) res: Response,
    @Headers('x-mxbai-tool-ticket') ticket?: string,
  ): Promise<GrepStoresResponse> {
    const params = body.params();
    const as = ticket !== undefined ? await this.tickets.redeem(p, ticket, 'grep') : p;
    const out = await timed('grep', () =>
      this.queries.execute<GrepStoresQuery, GrepStoresResponse>(new GrepStoresQuery(as, params)),
    );
    res.setHeader('server-timing', serverTiming(timings()));
    return out;
  }
}

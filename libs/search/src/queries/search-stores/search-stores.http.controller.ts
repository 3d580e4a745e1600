import { Body, Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { closedSignal, CurrentPrincipal, EventStream, Principal, requestStart, RequireScope } from '@larder/kernel';
import { serverTiming, Timing } from '../../search.config';
import { SEARCH_SCOPE } from '../../search-scope';
import { SearchStoresQuery } from './search-stores.query';
import { SearchStoresRequestDto } from './search-stores.request.dto';
import type { SearchStoresResponse } from './search-stores.handler';
import { ToolTickets } from '../../tool-tickets/tool-tickets';

/**
 * A 200 with a JSON body, written straight to the socket: what `res.json` sends less its per-response
 * work that a search answer does not need (the body's SHA-1 for a weak `ETag`, which no client of a
 * POST can use, and Express's content-type and charset parsing), measured at ~0.3-0.9 ms a search on
 * CISI-sized answers.
 */
function sendJson(res: Response, body: unknown, timing: Timing, started: number | undefined): void {
  const text = JSON.stringify(body);
  // `total`: from the request's first middleware to its body written out as JSON (what the server spent on it, bar the socket)
  if (started !== undefined) timing.total = performance.now() - started;
  res.setHeader('server-timing', serverTiming(timing));
  res.statusCode = 200;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * `POST /v1/stores/search`. With `stream: true` the answer is server-sent events: an agentic
 * search's trace events as they happen, then `search.completed` with the response, then `[DONE]`.
 * `X-Mxbai-Tool-Ticket` (a chat completion's tool ticket) is redeemed before the search runs: once
 * only (409 after), refused when forged, expired or another organization's (403); the search then
 * counts as that tool call (linked, billed at the agent rate).
 */
@Controller('v1/stores')
export class SearchStoresHttpController {
  constructor(
    private readonly queries: QueryBus,
    private readonly tickets: ToolTickets,
  ) {}

  @Post('search')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async find(@CurrentPrincipal() p: Principal, @Body() body: SearchStoresRequestDto, @Req() req: Request, @Res() res: Response, @Headers('x-mxbai-tool-ticket') ticket?: string): Promise<void> {
    const timing: Timing = {};
    const params = body.params();
    if (ticket !== undefined) p = await this.tickets.redeem(p, ticket, 'search');
    const setHeader = (name: string, value: string) => {
      if (!res.headersSent) res.setHeader(name, value);
    };
    if (!params.stream) {
      const out = await this.queries.execute<SearchStoresQuery, SearchStoresResponse>(new SearchStoresQuery(p, params, timing, undefined, closedSignal(res), setHeader));
      sendJson(res, out, timing, requestStart(req));
      return;
    }
    const live = new EventStream(res, req);
    try {
      const out = await this.queries.execute<SearchStoresQuery, SearchStoresResponse>(new SearchStoresQuery(p, params, timing, live, live.signal, setHeader));
      live.send('search.completed', out);
      live.done();
    } catch (err) {
      if (!live.started) throw err;
      live.fail(err);
    }
  }
}

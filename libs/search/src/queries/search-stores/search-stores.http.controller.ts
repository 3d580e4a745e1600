import { Body, Controller, Headers, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { addTiming, CurrentPrincipal, jsonBytes, Principal, requestStart, serverTiming, timings } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { AnswerPost, headerSetter, jsonOrStream } from '../../chat/json-or-stream';
import { SearchStoresQuery } from './search-stores.query';
import { SearchStoresRequestDto } from './search-stores.request.dto';
import type { SearchStoresResponse } from './search-stores.handler';
import { ToolTickets } from '../../tool-tickets/tool-tickets';

/**
 * The steps of a search in its Server-Timing header (ms, collected in the request's timing scope): `embed` (the
 * query's embedding, beside the lookup of stores and rules: `stores_and_rules`), `lexical` (the BM25
 * search, in the embedded index's read worker, beside the embedding and the dense search), `embed_wait`
 * (the embedding still running once the stores were looked up), `dense`, `lexical_wait` (the lexical
 * search still running once the dense one was done), `hydrate` (the answer's chunks read from the
 * index), `rerank` where a reranker runs, `search` (the query handler) and `total` (from the request's
 * first middleware to its JSON body). `total` less `embed`, `dense`, `lexical_wait`, `hydrate` and
 * `rerank` is the API's own time on the request (bench/support.ts `ownTime`; with `embed_wait` for
 * `embed`, its stricter critical-path form).
 *
 * A 200 with a JSON body, written straight to the socket: what `res.json` sends less its per-response
 * work that a search answer does not need (the body's SHA-1 for a weak `ETag`, which no client of a
 * POST can use, and Express's content-type and charset parsing), measured at ~0.3-0.9 ms a search on
 * CISI-sized answers. The body is serialized into bytes chunk by chunk (`jsonBytes`): the same bytes as
 * `JSON.stringify`, without one large string to count, flatten and encode.
 */
function sendJson(res: Response, body: unknown, started: number | undefined): void {
  const bytes = jsonBytes(body);
  // `total`: from the request's first middleware to its body written out as JSON (what the server spent on it, bar the socket)
  if (started !== undefined) addTiming('total', performance.now() - started);
  res.setHeader('server-timing', serverTiming(timings()));
  res.statusCode = 200;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes.length);
  res.end(bytes);
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

  @AnswerPost(SEARCH_SCOPE, 'search')
  async find(
    @CurrentPrincipal() p: Principal,
    @Body() body: SearchStoresRequestDto,
    @Req() req: Request,
    @Res() res: Response,
    @Headers('x-mxbai-tool-ticket') ticket?: string,
  ): Promise<void> {
    const params = body.params();
    if (ticket !== undefined) p = await this.tickets.redeem(p, ticket, 'search');
    const setHeader = headerSetter(res);
    await jsonOrStream(
      req,
      res,
      params.stream,
      (live, signal) =>
        this.queries.execute<SearchStoresQuery, SearchStoresResponse>(
          new SearchStoresQuery(p, params, live ?? undefined, signal, setHeader),
        ),
      (live, out) => (live.send('search.completed', out), live.done()),
      (out) => sendJson(res, out, requestStart(req)),
    );
  }
}

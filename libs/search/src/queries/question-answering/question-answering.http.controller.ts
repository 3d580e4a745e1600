import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { closedSignal, CurrentPrincipal, EventStream, Principal, RequireScope } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { QuestionAnsweringQuery } from './question-answering.query';
import { QuestionAnsweringRequestDto } from './question-answering.request.dto';
import type { QuestionAnsweringResponse } from './question-answering.handler';

/**
 * `POST /v1/stores/question-answering`. With `stream: true`: server-sent events — an agentic
 * retrieval's trace events, `qa.sources`, `qa.answer.delta` pieces, `qa.completed` with the whole
 * response, then `[DONE]`.
 */
@Controller('v1/stores')
export class QuestionAnsweringHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('question-answering')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  async answer(
    @CurrentPrincipal() p: Principal,
    @Body() body: QuestionAnsweringRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const params = body.params();
    const setHeader = (name: string, value: string) => {
      if (!res.headersSent) res.setHeader(name, value);
    };
    if (!params.stream) {
      const out = await this.queries.execute<QuestionAnsweringQuery, QuestionAnsweringResponse>(
        new QuestionAnsweringQuery(p, params, undefined, closedSignal(res), setHeader),
      );
      res.status(200).json(out);
      return;
    }
    const live = new EventStream(res, req);
    try {
      const out = await this.queries.execute<QuestionAnsweringQuery, QuestionAnsweringResponse>(
        new QuestionAnsweringQuery(p, params, live, live.signal, setHeader),
      );
      live.send('qa.completed', out);
      live.done();
    } catch (err) {
      if (!live.started) throw err;
      live.fail(err);
    }
  }
}

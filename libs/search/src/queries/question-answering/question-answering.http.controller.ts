import { Body, Controller, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { AnswerPost, headerSetter, jsonOrStream } from '../../chat/json-or-stream';
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

  @AnswerPost(SEARCH_SCOPE, 'question-answering')
  async answer(
    @CurrentPrincipal() p: Principal,
    @Body() body: QuestionAnsweringRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const params = body.params();
    const setHeader = headerSetter(res);
    await jsonOrStream(
      req,
      res,
      params.stream,
      (live, signal) =>
        this.queries.execute<QuestionAnsweringQuery, QuestionAnsweringResponse>(
          new QuestionAnsweringQuery(p, params, live ?? undefined, signal, setHeader),
        ),
      (live, out) => (live.send('qa.completed', out), live.done()),
    );
  }
}

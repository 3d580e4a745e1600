import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { MODEL_CREATE_SCOPE } from '../../models/model-scope';
import { RerankQuery } from './rerank.query';
import { RerankRequestDto } from './rerank.request.dto';
import type { RerankResponse } from './rerank.handler';

/**
 * `POST /v1/reranking`: `rerank` of @mixedbread/sdk, `reranking` of @mixedbread-ai/sdk 2.x
 * (and the LlamaIndex node reranker over it), and the Vercel AI provider's reranking model.
 */
@Controller('v1')
export class RerankHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('reranking')
  @HttpCode(200)
  @RequireScope(MODEL_CREATE_SCOPE)
  rerank(@CurrentPrincipal() p: Principal, @Body() body: RerankRequestDto): Promise<RerankResponse> {
    return this.queries.execute(new RerankQuery(p, body.params()));
  }
}

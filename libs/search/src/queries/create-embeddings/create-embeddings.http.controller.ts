import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { MODEL_CREATE_SCOPE } from '../../models/model-scope';
import { CreateEmbeddingsQuery } from './create-embeddings.query';
import { CreateEmbeddingsRequestDto } from './create-embeddings.request.dto';
import type { EmbeddingsResponse } from './create-embeddings.handler';

/**
 * `POST /v1/embeddings`: `embeddings.create` and `embed` of @mixedbread/sdk, `embeddings` of
 * @mixedbread-ai/sdk 2.x, the Vercel AI provider, and OpenAI's `embeddings.create` (whose default
 * `encoding_format: "base64"` is float32 little-endian here too).
 */
@Controller('v1')
export class CreateEmbeddingsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('embeddings')
  @HttpCode(200)
  @RequireScope(MODEL_CREATE_SCOPE)
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateEmbeddingsRequestDto): Promise<EmbeddingsResponse> {
    return this.queries.execute(new CreateEmbeddingsQuery(p, body.params()));
  }
}

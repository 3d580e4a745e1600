import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { RequireScope, SegmentsParam } from '@larder/kernel';
import { MODEL_READ_SCOPE } from '../../models/model-scope';
import { GetModelQuery } from './get-model.query';
import type { ModelObject } from '../../models/served-models';

/**
 * `GET /v1/models/{model}` (OpenAI's `models.retrieve`). Model names hold slashes
 * (`mixedbread-ai/mxbai-embed-large-v1`): sent encoded (`%2F`, as the clients do) or as they are.
 */
@Controller('v1/models')
export class GetModelHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('*model')
  @RequireScope(MODEL_READ_SCOPE)
  get(@SegmentsParam('model') model: string): Promise<ModelObject> {
    return this.queries.execute(new GetModelQuery(model));
  }
}

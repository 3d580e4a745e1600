import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { RequireScope } from '@larder/kernel';
import { MODEL_LIST_SCOPE } from '../../models/model-scope';
import { ListModelsQuery } from './list-models.query';
import type { ModelListResponse } from './list-models.handler';

/** `GET /v1/models` (OpenAI's `models.list`): `{object: "list", data: [model…]}`. */
@Controller('v1/models')
export class ListModelsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @RequireScope(MODEL_LIST_SCOPE)
  list(): Promise<ModelListResponse> {
    return this.queries.execute(new ListModelsQuery());
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ModelObject, ServedModels, toModelObject } from '../../models/served-models';
import { ListModelsQuery } from './list-models.query';

export interface ModelListResponse {
  object: 'list';
  data: ModelObject[];
}

/** The models this server serves (embedding, then reranking), as OpenAI lists its models. */
@QueryHandler(ListModelsQuery)
export class ListModelsHandler implements IQueryHandler<ListModelsQuery, ModelListResponse> {
  constructor(private readonly models: ServedModels) {}

  async execute(): Promise<ModelListResponse> {
    return { object: 'list', data: this.models.models.map((m) => toModelObject(m, this.models.created)) };
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ModelNotFoundError, ModelObject, ServedModels, toModelObject } from '../../models/served-models';
import { GetModelQuery } from './get-model.query';

/** One served model by its name or an alias (the object names the model itself); anything else is a 404 listing them. */
@QueryHandler(GetModelQuery)
export class GetModelHandler implements IQueryHandler<GetModelQuery, ModelObject> {
  constructor(private readonly models: ServedModels) {}

  async execute({ name }: GetModelQuery): Promise<ModelObject> {
    const m = this.models.find(name);
    if (!m)
      throw new ModelNotFoundError(
        `The model ${JSON.stringify(name)} is not served here. ${this.models.describe('embedding')} ${this.models.describe('reranking')}`,
      );
    return toModelObject(m, this.models.created);
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError, isUuid } from '@larder/kernel';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { CostHistogramResponse, PricedUsage } from '../../priced-usage';
import { GetStoreCostHistogramQuery } from './get-store-cost-histogram.query';

/** A store's daily costs over the period (parsing excluded). A deleted store keeps its costs; only another organization's (or an unknown) id is a 404. */
@QueryHandler(GetStoreCostHistogramQuery)
export class GetStoreCostHistogramHandler implements IQueryHandler<GetStoreCostHistogramQuery, CostHistogramResponse> {
  constructor(
    private readonly usage: PricedUsage,
    private readonly stores: StoresReader,
  ) {}

  async execute({ organizationId, storeId }: GetStoreCostHistogramQuery): Promise<CostHistogramResponse> {
    const known = isUuid(storeId)
      ? await this.usage.histogram(
          organizationId,
          (r) => r.storeId === storeId.toLowerCase() && r.metric !== 'parsing_tokens',
        )
      : null;
    if (!known || (!known.data.some((d) => d.cost !== '0') && !(await this.stores.resolve(organizationId, storeId))))
      throw new NotFoundError(`Store ${storeId} not found`);
    return known;
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CostHistogramResponse, PricedUsage } from '../../priced-usage';
import { GetParsingCostHistogramQuery } from './get-parsing-cost-histogram.query';

/** The organization's daily parsing costs over the period. */
@QueryHandler(GetParsingCostHistogramQuery)
export class GetParsingCostHistogramHandler implements IQueryHandler<
  GetParsingCostHistogramQuery,
  CostHistogramResponse
> {
  constructor(private readonly usage: PricedUsage) {}

  execute({ organizationId }: GetParsingCostHistogramQuery): Promise<CostHistogramResponse> {
    return this.usage.histogram(organizationId, (r) => r.metric === 'parsing_tokens');
  }
}

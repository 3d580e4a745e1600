import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import type { CostHistogramResponse } from '../../priced-usage';
import { GetParsingCostHistogramQuery } from './get-parsing-cost-histogram.query';

@Controller('v1/billing')
export class GetParsingCostHistogramHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('parsing/costs/histogram')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  parsingHistogram(@CurrentPrincipal() p: Principal): Promise<CostHistogramResponse> {
    return this.queries.execute(new GetParsingCostHistogramQuery(p.organizationId));
  }
}

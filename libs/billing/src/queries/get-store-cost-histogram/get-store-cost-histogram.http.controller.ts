import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import type { CostHistogramResponse } from '../../priced-usage';
import { GetStoreCostHistogramQuery } from './get-store-cost-histogram.query';

@Controller('v1/billing')
export class GetStoreCostHistogramHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('stores/:store_id/costs/histogram')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  storeHistogram(
    @CurrentPrincipal() p: Principal,
    @UuidParam('store_id') storeId: string,
  ): Promise<CostHistogramResponse> {
    return this.queries.execute(new GetStoreCostHistogramQuery(p.organizationId, storeId));
  }
}

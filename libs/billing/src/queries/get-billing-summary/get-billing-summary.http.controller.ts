import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import type { BillingSummaryResponse } from './get-billing-summary.handler';
import { GetBillingSummaryQuery } from './get-billing-summary.query';

@Controller('v1/billing')
export class GetBillingSummaryHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('summary')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  summary(@CurrentPrincipal() p: Principal): Promise<BillingSummaryResponse> {
    return this.queries.execute(new GetBillingSummaryQuery(p.organizationId));
  }
}

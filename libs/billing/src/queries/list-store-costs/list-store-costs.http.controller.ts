import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import type { StoreCostsResponse } from './list-store-costs.handler';
import { ListStoreCostsQuery } from './list-store-costs.query';

@Controller('v1/billing')
export class ListStoreCostsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('stores')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  stores_(@CurrentPrincipal() p: Principal): Promise<StoreCostsResponse> {
    return this.queries.execute(new ListStoreCostsQuery(p.organizationId));
  }
}

import { Controller, Get, Param } from '@nestjs/common';
import { CurrentPrincipal, NotFoundError, Principal, RequireScope } from '@larder/kernel';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { BillingService } from '../billing.service';

/** Billing (contract §7): the current period's metered costs, priced by the configured table. */
@Controller('v1/billing')
export class BillingHttpController {
  constructor(
    private readonly billing: BillingService,
    private readonly stores: StoresReader,
  ) {}

  @Get('summary')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  summary(@CurrentPrincipal() p: Principal) {
    return this.billing.summary(p.organizationId);
  }

  @Get('stores')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  stores_(@CurrentPrincipal() p: Principal) {
    return this.billing.stores(p.organizationId);
  }

  @Get('stores/:store_id/costs/histogram')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  async storeHistogram(@CurrentPrincipal() p: Principal, @Param('store_id') storeId: string) {
    // a deleted store keeps its costs; only another organization's (or an unknown) id is a 404
    const known = /^[0-9a-f-]{36}$/i.test(storeId) ? await this.billing.histogram(p.organizationId, (r) => r.storeId === storeId.toLowerCase() && r.metric !== 'parsing_tokens') : null;
    if (!known || (!known.data.some((d) => d.cost !== '0') && !(await this.stores.resolve(p.organizationId, storeId)))) throw new NotFoundError(`Store ${storeId} not found`);
    return known;
  }

  @Get('parsing/costs/histogram')
  @RequireScope({ method: 'read', resourceType: 'billing' })
  parsingHistogram(@CurrentPrincipal() p: Principal) {
    return this.billing.histogram(p.organizationId, (r) => r.metric === 'parsing_tokens');
  }
}

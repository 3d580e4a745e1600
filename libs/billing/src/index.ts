import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BillingReader } from '@larder/projections/billing/billing.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { PricedUsage } from './priced-usage';
import { GetBillingSummaryHandler } from './queries/get-billing-summary/get-billing-summary.handler';
import { GetBillingSummaryHttpController } from './queries/get-billing-summary/get-billing-summary.http.controller';
import { ListStoreCostsHandler } from './queries/list-store-costs/list-store-costs.handler';
import { ListStoreCostsHttpController } from './queries/list-store-costs/list-store-costs.http.controller';
import { GetStoreCostHistogramHandler } from './queries/get-store-cost-histogram/get-store-cost-histogram.handler';
import { GetStoreCostHistogramHttpController } from './queries/get-store-cost-histogram/get-store-cost-histogram.http.controller';
import { GetParsingCostHistogramHandler } from './queries/get-parsing-cost-histogram/get-parsing-cost-histogram.handler';
import { GetParsingCostHistogramHttpController } from './queries/get-parsing-cost-histogram/get-parsing-cost-histogram.http.controller';

export { BILLING_CONFIG } from './billing.config';
export type { BillingConfig } from './billing.config';
export { Money } from './money';
export { priceTable, DEFAULT_PRICES, METRICS } from './prices';

/** Billing from metered activity: the current period's metered costs, priced by the configured table. */
@Module({
  imports: [CqrsModule],
  controllers: [
    GetBillingSummaryHttpController,
    ListStoreCostsHttpController,
    GetStoreCostHistogramHttpController,
    GetParsingCostHistogramHttpController,
  ],
  providers: [
    BillingReader,
    StoresReader,
    PricedUsage,
    GetBillingSummaryHandler,
    ListStoreCostsHandler,
    GetStoreCostHistogramHandler,
    GetParsingCostHistogramHandler,
  ],
})
export class BillingModule {}

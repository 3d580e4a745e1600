import { Module } from '@nestjs/common';
import { BillingReader } from '@larder/projections/billing/billing.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { BillingService } from './billing.service';
import { BillingHttpController } from './http/billing.http.controller';

export { BILLING_CONFIG } from './billing.service';
export type { BillingConfig } from './billing.service';
export { Money } from './money';
export { priceTable, DEFAULT_PRICES, METRICS } from './prices';

/** Billing from metered activity (contract §7). */
@Module({
  controllers: [BillingHttpController],
  providers: [BillingService, BillingReader, StoresReader],
})
export class BillingModule {}

import type { Money } from './money';
import type { PriceTable } from './prices';

export interface BillingConfig {
  prices: PriceTable;
  /** Credit every organization starts each period with (operator-set). */
  credit: Money;
  /** Day of the month (1–28) a billing period starts on. */
  anchorDay: number;
}
export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

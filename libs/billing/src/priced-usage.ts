import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@larder/kernel';
import { BillingReader, UsageRow } from '@larder/projections/billing/billing.reader';
import { Money } from './money';
import { Metric, METRICS } from './prices';
import { BILLING_CONFIG, BillingConfig } from './billing.config';

/** byte-microseconds in one GB-month (10⁹ bytes × 730 h). */
export const BYTE_MICROS_PER_GB_MONTH = 1_000_000_000n * 730n * 3600n * 1_000_000n;

export type PricedRow = UsageRow & { cost: Money };

/** Metered usage (billing projection) of the current period, priced exactly (Money) by the configured table. */
@Injectable()
export class PricedUsage {
  constructor(
    private readonly reader: BillingReader,
    @Inject(BILLING_CONFIG) readonly config: BillingConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  period(now = this.clock.now()): { start: Date; end: Date } {
    const day = this.config.anchorDay;
    let start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), day));
    if (start > now) start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, day));
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, day));
    return { start, end };
  }

  cost(metric: Metric, quantity: string): Money {
    const q = BigInt(quantity);
    if (metric === 'storage') return this.config.prices.storage.times(q, BYTE_MICROS_PER_GB_MONTH);
    return this.config.prices[metric].times(q, METRICS[metric].per);
  }

  /** The period's daily usage rows of an organization, each with its cost. */
  async rows(organizationId: string): Promise<{ period: { start: Date; end: Date }; rows: PricedRow[]; now: Date }> {
    const now = this.clock.now();
    const period = this.period(now);
    const rows = (await this.reader.daily(organizationId, period.start, period.end, now))
      .filter((r) => r.metric in METRICS && r.quantity !== '0')
      .map((r) => ({ ...r, cost: this.cost(r.metric as Metric, r.quantity) }));
    return { period, rows, now };
  }

  /** Daily buckets over the period (every day, 0 when nothing was metered) of the rows `keep` selects. */
  async histogram(organizationId: string, keep: (r: UsageRow) => boolean): Promise<CostHistogramResponse> {
    const { period, rows } = await this.rows(organizationId);
    const data: CostHistogramResponse['data'] = [];
    for (let d = new Date(period.start); d < period.end; d = new Date(d.getTime() + 86_400_000)) {
      const day = d.toISOString().slice(0, 10);
      const m = new Map<string, Money>();
      for (const r of rows)
        if (r.day === day && keep(r)) m.set(r.metric, (m.get(r.metric) ?? Money.zero()).add(r.cost));
      data.push({
        day: `${day}T00:00:00.000Z`,
        cost: [...m.values()].reduce((a, b) => a.add(b), Money.zero()).toString(),
        cost_per_metric: Object.fromEntries([...m].map(([k, v]) => [k, v.toString()])),
      });
    }
    return { object: 'cost.histogram', data };
  }
}

export interface CostHistogramResponse {
  object: 'cost.histogram';
  data: Array<{ day: string; cost: string; cost_per_metric: Record<string, string> }>;
}

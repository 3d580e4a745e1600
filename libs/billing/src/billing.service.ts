import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@larder/kernel';
import { BillingReader, UsageRow } from '@larder/projections/billing/billing.reader';
import { Money } from './money';
import { Metric, METRICS, PriceTable } from './prices';

export interface BillingConfig {
  prices: PriceTable;
  /** Credit every organization starts each period with (operator-set). */
  credit: Money;
  /** Day of the month (1–28) a billing period starts on. */
  anchorDay: number;
}
export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

/** byte-microseconds in one GB-month (10⁹ bytes × 730 h). */
const BYTE_MICROS_PER_GB_MONTH = 1_000_000_000n * 730n * 3600n * 1_000_000n;
const PRODUCT_ORDER = ['Store', 'Parsing', 'Agentic search', 'Question answering', 'Completions'];

/** Prices metered usage (billing projection) for a period, exactly (Money). */
@Injectable()
export class BillingService {
  constructor(
    private readonly reader: BillingReader,
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
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

  private async rows(organizationId: string): Promise<{ period: { start: Date; end: Date }; rows: Array<UsageRow & { cost: Money }>; now: Date }> {
    const now = this.clock.now();
    const period = this.period(now);
    const rows = (await this.reader.daily(organizationId, period.start, period.end, now))
      .filter((r) => r.metric in METRICS && r.quantity !== '0')
      .map((r) => ({ ...r, cost: this.cost(r.metric as Metric, r.quantity) }));
    return { period, rows, now };
  }

  async summary(organizationId: string) {
    const { period, rows, now } = await this.rows(organizationId);
    const gross = rows.reduce((m, r) => m.add(r.cost), Money.zero());
    const byProduct = new Map<string, Money>();
    for (const r of rows) {
      const p = METRICS[r.metric as Metric].product;
      byProduct.set(p, (byProduct.get(p) ?? Money.zero()).add(r.cost));
    }
    // the credit pays products in a fixed order until it is used up
    let left = this.config.credit.max(Money.zero());
    const products = PRODUCT_ORDER.filter((p) => byProduct.has(p)).map((p) => {
      const g = byProduct.get(p)!;
      const applied = g.min(left);
      left = left.sub(applied);
      return { product_name: p, gross_usage_cost: g.toString(), net_usage_cost: g.sub(applied).toString(), balance_applied: applied.toString() };
    });
    const applied = gross.min(this.config.credit.max(Money.zero()));
    const net = gross.sub(applied);
    const usages: Record<string, { current: string; limit: null; unit: string }> = {};
    for (const m of Object.keys(METRICS) as Metric[]) {
      const q = rows.filter((r) => r.metric === m).reduce((n, r) => n + BigInt(r.quantity), 0n);
      const current = m === 'storage' ? Money.parse('1').times(q, BYTE_MICROS_PER_GB_MONTH).toString() : q.toString();
      usages[m] = { current, limit: null, unit: METRICS[m].unit };
    }
    const p = { start: period.start.toISOString(), end: period.end.toISOString() };
    const balance = this.config.credit.sub(applied).toNumber();
    return {
      period: p,
      cost: {
        net_usage_cost: net.toString(),
        gross_usage_cost: gross.toString(),
        balance_applied: applied.toString(),
        phases: [{ period: p, net_usage_cost: net.toString(), gross_usage_cost: gross.toString(), balance_applied: applied.toString() }],
        products,
      },
      balance: { current_balance: balance, next_effective_balance: this.config.credit.toNumber(), next_effective_date: period.end.toISOString() },
      usages,
      generated_at: now.toISOString(),
    };
  }

  /** Per store: every metric but parsing (its own product and histogram). */
  async stores(organizationId: string) {
    const { rows } = await this.rows(organizationId);
    const by = new Map<string, Map<string, Money>>();
    for (const r of rows) {
      if (!r.storeId || r.metric === 'parsing_tokens') continue;
      const m = by.get(r.storeId) ?? new Map<string, Money>();
      m.set(r.metric, (m.get(r.metric) ?? Money.zero()).add(r.cost));
      by.set(r.storeId, m);
    }
    const data = [...by].map(([storeId, m]) => ({
      store_id: storeId,
      cost: [...m.values()].reduce((a, b) => a.add(b), Money.zero()).toString(),
      cost_per_metric: Object.fromEntries([...m].map(([k, v]) => [k, v.toString()])),
    }));
    return { object: 'list' as const, data: data.sort((a, b) => a.store_id.localeCompare(b.store_id)) };
  }

  /** Daily buckets over the period (every day, 0 when nothing was metered). */
  async histogram(organizationId: string, keep: (r: UsageRow) => boolean) {
    const { period, rows } = await this.rows(organizationId);
    const data = [];
    for (let d = new Date(period.start); d < period.end; d = new Date(d.getTime() + 86_400_000)) {
      const day = d.toISOString().slice(0, 10);
      const m = new Map<string, Money>();
      for (const r of rows) if (r.day === day && keep(r)) m.set(r.metric, (m.get(r.metric) ?? Money.zero()).add(r.cost));
      data.push({
        day: `${day}T00:00:00.000Z`,
        cost: [...m.values()].reduce((a, b) => a.add(b), Money.zero()).toString(),
        cost_per_metric: Object.fromEntries([...m].map(([k, v]) => [k, v.toString()])),
      });
    }
    return { object: 'cost.histogram' as const, data };
  }
}

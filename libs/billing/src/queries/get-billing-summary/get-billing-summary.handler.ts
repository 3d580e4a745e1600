import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Money } from '../../money';
import { Metric, METRICS } from '../../prices';
import { BYTE_MICROS_PER_GB_MONTH, PricedUsage } from '../../priced-usage';
import { GetBillingSummaryQuery } from './get-billing-summary.query';

interface Costs {
  net_usage_cost: string;
  gross_usage_cost: string;
  balance_applied: string;
}

export interface BillingSummaryResponse {
  period: { start: string; end: string };
  cost: Costs & {
    phases: Array<Costs & { period: { start: string; end: string } }>;
    products: Array<Costs & { product_name: string }>;
  };
  balance: { current_balance: number; next_effective_balance: number; next_effective_date: string };
  usages: Record<string, { current: string; limit: null; unit: string }>;
  generated_at: string;
}

const PRODUCT_ORDER = [
  'Store',
  'Parsing',
  'Agentic search',
  'Question answering',
  'Completions',
  'Embeddings',
  'Reranking',
];

/** The period's costs per product, the credit applied to them, the balance and the usage per metric. */
@QueryHandler(GetBillingSummaryQuery)
export class GetBillingSummaryHandler implements IQueryHandler<GetBillingSummaryQuery, BillingSummaryResponse> {
  constructor(private readonly usage: PricedUsage) {}

  async execute({ organizationId }: GetBillingSummaryQuery): Promise<BillingSummaryResponse> {
    const { credit } = this.usage.config;
    const { period, rows, now } = await this.usage.rows(organizationId);
    const gross = rows.reduce((m, r) => m.add(r.cost), Money.zero());
    const byProduct = new Map<string, Money>();
    for (const r of rows) {
      const p = METRICS[r.metric as Metric].product;
      byProduct.set(p, (byProduct.get(p) ?? Money.zero()).add(r.cost));
    }
    // the credit pays products in a fixed order until it is used up
    let left = credit.max(Money.zero());
    const products = PRODUCT_ORDER.filter((p) => byProduct.has(p)).map((p) => {
      const g = byProduct.get(p)!;
      const applied = g.min(left);
      left = left.sub(applied);
      return {
        product_name: p,
        gross_usage_cost: g.toString(),
        net_usage_cost: g.sub(applied).toString(),
        balance_applied: applied.toString(),
      };
    });
    const applied = gross.min(credit.max(Money.zero()));
    const net = gross.sub(applied);
    const usages: Record<string, { current: string; limit: null; unit: string }> = {};
    for (const m of Object.keys(METRICS) as Metric[]) {
      const q = rows.filter((r) => r.metric === m).reduce((n, r) => n + BigInt(r.quantity), 0n);
      const current = m === 'storage' ? Money.parse('1').times(q, BYTE_MICROS_PER_GB_MONTH).toString() : q.toString();
      usages[m] = { current, limit: null, unit: METRICS[m].unit };
    }
    const p = { start: period.start.toISOString(), end: period.end.toISOString() };
    const balance = credit.sub(applied).toNumber();
    return {
      period: p,
      cost: {
        net_usage_cost: net.toString(),
        gross_usage_cost: gross.toString(),
        balance_applied: applied.toString(),
        phases: [
          {
            period: p,
            net_usage_cost: net.toString(),
            gross_usage_cost: gross.toString(),
            balance_applied: applied.toString(),
          },
        ],
        products,
      },
      balance: {
        current_balance: balance,
        next_effective_balance: credit.toNumber(),
        next_effective_date: period.end.toISOString(),
      },
      usages,
      generated_at: now.toISOString(),
    };
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Money } from '../../money';
import { PricedUsage } from '../../priced-usage';
import { ListStoreCostsQuery } from './list-store-costs.query';

export interface StoreCostsResponse {
  object: 'list';
  data: Array<{ store_id: string; cost: string; cost_per_metric: Record<string, string> }>;
}

/** The period's costs per store: every metric but parsing (its own product and histogram). */
@QueryHandler(ListStoreCostsQuery)
export class ListStoreCostsHandler implements IQueryHandler<ListStoreCostsQuery, StoreCostsResponse> {
  constructor(private readonly usage: PricedUsage) {}

  async execute({ organizationId }: ListStoreCostsQuery): Promise<StoreCostsResponse> {
    const { rows } = await this.usage.rows(organizationId);
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
    return { object: 'list', data: data.sort((a, b) => a.store_id.localeCompare(b.store_id)) };
  }
}

// The activity page's billing section: the period's usage and cost, cost per day and metric, and cost per store.
import { useState } from 'react';
import { seg } from '../api';
import { useApi } from '../session';
import { useLoad } from '../hooks';
import { dateTime, day, money, moneyTick } from '../format';
import type { BillingSummary, CostBucket, Store, StoreCost } from '../types';
import { ErrorBox } from '../components/ErrorBox';
import { Loading } from '../components/bits';
import { StackedBars } from '../components/Chart';

/** Cost per day and metric as chart rows (decimal strings → numbers for the chart only). */
function costRows(data: CostBucket[]): {
  rows: Array<Record<string, string | number>>;
  series: Array<{ key: string; label: string }>;
} {
  const metrics = new Set<string>();
  for (const b of data) for (const m of Object.keys(b.cost_per_metric)) metrics.add(m);
  const rows = data.map((b) => {
    const row: Record<string, string | number> = { day: day(b.day) };
    for (const m of metrics) row[m] = Number(b.cost_per_metric[m] ?? 0);
    return row;
  });
  return { rows, series: [...metrics].map((m) => ({ key: m, label: m.replace(/_/g, ' ') })) };
}

export function Billing({ stores, names }: { stores: Store[]; names: Map<string, string> }) {
  const api = useApi();
  const summary = useLoad((signal) => api.get<BillingSummary>('/v1/billing/summary', undefined, signal), 'summary');
  const storeCosts = useLoad(
    (signal) => api.get<{ data: StoreCost[] }>('/v1/billing/stores', undefined, signal),
    'store-costs',
  );
  const parsing = useLoad(
    (signal) => api.get<{ data: CostBucket[] }>('/v1/billing/parsing/costs/histogram', undefined, signal),
    'parsing',
  );
  const [picked, setPicked] = useState('');
  const store = picked || stores[0]?.id || '';
  const storeHist = useLoad(
    async (signal) =>
      store
        ? api.get<{ data: CostBucket[] }>(`/v1/billing/stores/${seg(store)}/costs/histogram`, undefined, signal)
        : null,
    store,
  );

  const s = summary.data;
  const products = (s?.cost.products ?? []).map((p) => ({
    product: p.product_name,
    gross: Number(p.gross_usage_cost),
    net: Number(p.net_usage_cost),
  }));
  const storeChart = costRows(storeHist.data?.data ?? []);
  const parsingChart = costRows(parsing.data?.data ?? []);
  return (
    <section aria-labelledby="bill-title" className="panel">
      <h2 id="bill-title">Costs this period</h2>
      <ErrorBox error={summary.error} />
      {summary.loading && !s ? <Loading what="the billing summary" /> : null}
      {s ? (
        <>
          <dl className="facts">
            <div>
              <dt>Period</dt>
              <dd>
                {dateTime(s.period.start)} – {dateTime(s.period.end)}
              </dd>
            </div>
            <div>
              <dt>Gross usage</dt>
              <dd data-testid="gross-cost">{money(s.cost.gross_usage_cost)}</dd>
            </div>
            <div>
              <dt>Credit applied</dt>
              <dd>{money(s.cost.balance_applied)}</dd>
            </div>
            <div>
              <dt>Net</dt>
              <dd>{money(s.cost.net_usage_cost)}</dd>
            </div>
            <div>
              <dt>Balance</dt>
              <dd>{money(s.balance.current_balance ?? 0)}</dd>
            </div>
          </dl>
          <StackedBars
            id="product-costs"
            title="Cost by product (gross)"
            rows={products.map((p) => ({ product: p.product, gross: p.gross }))}
            xKey="product"
            series={[{ key: 'gross', label: 'gross cost' }]}
            format={money}
            tick={moneyTick}
            empty="No costs this period yet."
          />
          <details>
            <summary>Usage by metric</summary>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Metric</th>
                    <th scope="col">Usage</th>
                    <th scope="col">Unit</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(s.usages).map(([k, u]) => (
                    <tr key={k}>
                      <th scope="row">{k.replace(/_/g, ' ')}</th>
                      <td className="num">{u.current}</td>
                      <td>{u.unit}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      ) : null}
      <h3>Daily cost of a store</h3>
      <label>
        Store{' '}
        <select value={store} onChange={(e) => setPicked(e.target.value)}>
          {stores.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
              {storeCosts.data ? ` (${money(storeCosts.data.data.find((c) => c.store_id === x.id)?.cost ?? 0)})` : ''}
            </option>
          ))}
        </select>
      </label>
      <ErrorBox error={storeHist.error} />
      {storeHist.data ? (
        <StackedBars
          id="store-cost-chart"
          title={`Daily cost of ${names.get(store) ?? store} by metric`}
          rows={storeChart.rows}
          xKey="day"
          series={storeChart.series}
          format={money}
          tick={moneyTick}
          empty="No cost for this store this period."
        />
      ) : null}
      <h3>Parsing</h3>
      <ErrorBox error={parsing.error} />
      {parsing.data ? (
        <StackedBars
          id="parsing-cost-chart"
          title="Daily parsing cost (high_quality ingestion)"
          rows={parsingChart.rows}
          xKey="day"
          series={parsingChart.series}
          format={money}
          tick={moneyTick}
          empty="No parsing cost this period."
        />
      ) : null}
    </section>
  );
}

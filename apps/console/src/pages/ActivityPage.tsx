import { useMemo, useState, type FormEvent } from 'react';
import { seg } from '../api';
import { useApi } from '../session';
import { useLoad } from '../hooks';
import { count, dateTime, day, duration, shortTime } from '../format';
import type { ActivityEvent, CursorList, HistogramBucket, Store } from '../types';
import { ErrorBox } from '../components/ErrorBox';
import { Loading } from '../components/bits';
import { StackedBars } from '../components/Chart';
import { Billing } from './BillingSection';

const EVENT_TYPES = ['ingestion', 'search', 'agentic_search', 'grep', 'qa', 'completion'] as const;
const RANGES = [
  { id: '24h', label: 'Last 24 hours', ms: 24 * 3600_000, bucket: 3600 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600_000, bucket: 6 * 3600 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 24 * 3600_000, bucket: 24 * 3600 },
];

export function ActivityPage() {
  const api = useApi();
  const stores = useLoad((signal) => api.get<CursorList<Store>>('/v1/stores', { limit: 100 }, signal), 'stores');
  const list = useMemo(() => stores.data?.data ?? [], [stores.data]);
  const names = useMemo(() => new Map(list.map((s) => [s.id, s.name])), [list]);
  return (
    <section aria-labelledby="act-title">
      <h1 id="act-title">Activity and costs</h1>
      <ErrorBox error={stores.error} />
      <Events stores={list} names={names} />
      <Histogram stores={list} />
      <Billing stores={list} names={names} />
    </section>
  );
}

function Events({ stores, names }: { stores: Store[]; names: Map<string, string> }) {
  const api = useApi();
  const [form, setForm] = useState({ type: 'ingestion', store: '', after: '', before: '' });
  const [applied, setApplied] = useState(form);
  const [more, setMore] = useState(0);
  const events = useLoad(
    async (signal) => {
      const out: ActivityEvent[] = [];
      let after: string | undefined;
      let hasMore = false;
      for (let i = 0; i <= more; i++) {
        const page = await api.get<CursorList<ActivityEvent>>(
          '/v1/events',
          {
            event_type: applied.type,
            store_identifier: applied.store || undefined,
            filter_after: applied.after ? new Date(applied.after).toISOString() : undefined,
            filter_before: applied.before ? new Date(applied.before).toISOString() : undefined,
            limit: 25,
            after,
          },
          signal,
        );
        out.push(...page.data);
        hasMore = page.pagination.has_more;
        after = page.pagination.last_cursor ?? undefined;
        if (!hasMore || !after) break;
      }
      return { events: out, hasMore };
    },
    `${JSON.stringify(applied)}|${more}`,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMore(0);
    setApplied(form);
    events.reload();
  };
  const storeOf = (e: ActivityEvent) =>
    (e.store_id ? [e.store_id] : (e.store_ids ?? [])).map((id) => names.get(id) ?? id).join(', ') || '—';
  return (
    <section aria-labelledby="ev-title" className="panel">
      <h2 id="ev-title">Events</h2>
      <form className="row wrap" onSubmit={submit}>
        <label>
          Type{' '}
          <select value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value })}>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Store{' '}
          <select value={form.store} onChange={(e) => setForm({ ...form, store: e.target.value })}>
            <option value="">all stores</option>
            {stores.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          After{' '}
          <input
            type="datetime-local"
            value={form.after}
            onChange={(e) => setForm({ ...form, after: e.target.value })}
          />
        </label>
        <label>
          Before{' '}
          <input
            type="datetime-local"
            value={form.before}
            onChange={(e) => setForm({ ...form, before: e.target.value })}
          />
        </label>
        <button type="submit">Show events</button>
      </form>
      <ErrorBox error={events.error} />
      {events.loading && !events.data ? <Loading what="events" /> : null}
      {events.data && events.data.events.length === 0 ? <p>No {applied.type} events.</p> : null}
      {events.data && events.data.events.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="events">
            <caption className="sr-only">{applied.type} events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Type</th>
                <th scope="col">Store</th>
                <th scope="col">What</th>
                <th scope="col">Time</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {events.data.events.map((e) => (
                <tr key={e.id} data-type={e.type}>
                  <td data-label="When">{dateTime(e.created_at)}</td>
                  <td data-label="Type">{e.type}</td>
                  <td data-label="Store">{storeOf(e)}</td>
                  <td data-label="What">{e.filename ?? e.query ?? e.pattern ?? e.model ?? '—'}</td>
                  <td data-label="Time">{duration(e.total_time ?? e.search_time ?? e.completion_time)}</td>
                  <td data-label="Detail">
                    {e.type === 'ingestion'
                      ? `${count(e.chunk_count)} chunk${e.chunk_count === 1 ? '' : 's'}, ${e.mode ?? ''}, queued ${duration(e.queue_time)}`
                      : e.results
                        ? `${e.results.length} results${e.results[0]?.filename ? `, first ${e.results[0].filename}` : ''}`
                        : e.rounds_executed != null
                          ? `${e.rounds_executed} rounds`
                          : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {events.data?.hasMore ? (
        <button type="button" onClick={() => setMore((m) => m + 1)}>
          Show more
        </button>
      ) : null}
    </section>
  );
}

function Histogram({ stores }: { stores: Store[] }) {
  const api = useApi();
  const [picked, setPicked] = useState('');
  const [range, setRange] = useState('24h');
  const store = picked || stores[0]?.id || '';
  const r = RANGES.find((x) => x.id === range) ?? RANGES[0];
  const hist = useLoad(async (signal) => {
    if (!store) return null;
    const end = new Date();
    const start = new Date(end.getTime() - r.ms);
    return api.request<{ data: HistogramBucket[] }>('POST', `/v1/stores/${seg(store)}/events/histogram`, {
      body: {
        start_time: start.toISOString(),
        end_time: end.toISOString(),
        bucket_seconds: r.bucket,
        event_types: [...EVENT_TYPES],
      },
      signal,
    });
  }, `${store}|${range}`);
  const { rows, series } = useMemo(() => {
    const byStart = new Map<string, Record<string, string | number>>();
    const types = new Set<string>();
    for (const b of hist.data?.data ?? []) {
      const row = byStart.get(b.bucket_start) ?? {
        time: r.bucket >= 86400 ? day(b.bucket_start) : shortTime(b.bucket_start),
      };
      row[b.type] = Number(row[b.type] ?? 0) + b.event_count;
      byStart.set(b.bucket_start, row);
      if (b.event_count > 0) types.add(b.type);
    }
    return { rows: [...byStart.values()], series: [...types].map((t) => ({ key: t, label: t })) };
  }, [hist.data, r.bucket]);
  return (
    <section aria-labelledby="hist-title" className="panel">
      <h2 id="hist-title">Store events</h2>
      <div className="row wrap">
        <label>
          Store{' '}
          <select value={store} onChange={(e) => setPicked(e.target.value)}>
            {stores.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Range{' '}
          <select value={range} onChange={(e) => setRange(e.target.value)}>
            {RANGES.map((x) => (
              <option key={x.id} value={x.id}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBox error={hist.error} />
      {!store ? <p>No stores yet.</p> : null}
      {store && hist.loading && !hist.data ? <Loading what="the histogram" /> : null}
      {hist.data ? (
        <StackedBars
          id="event-histogram"
          title="Events per bucket and type"
          rows={rows}
          xKey="time"
          series={series}
          format={(v) => count(v)}
          empty="No events in this range."
        />
      ) : null}
    </section>
  );
}

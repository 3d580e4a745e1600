import type { Pool } from 'pg';
import type { TraceKind } from '../events';
import type { FinishedRun } from '../export/finished-run';
import {
  DeliveryOutcome,
  NO_OUTCOME,
  DeliveryBackoff,
  PendingDelivery,
  TraceDeliveries,
} from '../delivery/trace-deliveries.port';

const QUEUE = 'trace_deliveries_v1';
const OUTCOMES = 'trace_delivery_outcomes_v1';

/** The delivery queue and outcomes in two Postgres tables beside the read models (not read models: replay never touches them). */
export class PostgresTraceDeliveries implements TraceDeliveries {
  constructor(private readonly pool: Pool) {}

  async setup(): Promise<void> {
    // one simple query (one round trip, one transaction), behind a lock held to its end: two processes setting
    // up a fresh database at once would otherwise both create the tables and one fail on the catalog
    await this.pool.query(`SELECT pg_advisory_xact_lock(hashtext('larder-trace-deliveries-setup'));
    CREATE TABLE IF NOT EXISTS ${QUEUE} (
      destination_id text NOT NULL,
      source_event_id text NOT NULL,
      organization_id text NOT NULL,
      trace_kind text NOT NULL,
      run jsonb NOT NULL,
      enqueued_at timestamptz NOT NULL,
      attempts int NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      leased_until timestamptz,
      PRIMARY KEY (destination_id, source_event_id)
    );
    CREATE INDEX IF NOT EXISTS ${QUEUE}_due ON ${QUEUE} (next_attempt_at);
    CREATE TABLE IF NOT EXISTS ${OUTCOMES} (
      destination_id text PRIMARY KEY,
      organization_id text NOT NULL,
      last_attempt_at timestamptz,
      last_success_at timestamptz,
      last_failure_at timestamptz,
      last_error text,
      consecutive_failures int NOT NULL DEFAULT 0,
      delivered bigint NOT NULL DEFAULT 0,
      dropped bigint NOT NULL DEFAULT 0
    )`);
  }

  async enqueue(items: Array<Omit<PendingDelivery, 'attempts'>>, now: Date): Promise<number> {
    if (!items.length) return 0;
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${QUEUE} (destination_id, source_event_id, organization_id, trace_kind, run, enqueued_at, next_attempt_at)
       SELECT d, s, o, k, r::jsonb, $6, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS x(d, s, o, k, r)
       ON CONFLICT (destination_id, source_event_id) DO NOTHING`,
      [
        items.map((i) => i.destinationId),
        items.map((i) => i.sourceEventId),
        items.map((i) => i.organizationId),
        items.map((i) => i.traceKind),
        items.map((i) => JSON.stringify(i.run)),
        now,
      ],
    );
    return rowCount ?? 0;
  }

  async dueDestinations(now: Date, limit: number): Promise<Array<{ destinationId: string; organizationId: string }>> {
    const { rows } = await this.pool.query<{ destination_id: string; organization_id: string }>(
      `SELECT destination_id, min(organization_id) AS organization_id FROM ${QUEUE}
        WHERE next_attempt_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
        GROUP BY destination_id ORDER BY min(next_attempt_at) LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => ({ destinationId: r.destination_id, organizationId: r.organization_id }));
  }

  async claim(destinationId: string, now: Date, limit: number, leaseUntil: Date): Promise<PendingDelivery[]> {
    const { rows } = await this.pool.query<{
      source_event_id: string;
      organization_id: string;
      trace_kind: string;
      run: FinishedRun;
      attempts: number;
    }>(
      `UPDATE ${QUEUE} q SET leased_until = $4
         FROM (SELECT source_event_id FROM ${QUEUE}
                WHERE destination_id = $1 AND next_attempt_at <= $2 AND (leased_until IS NULL OR leased_until <= $2)
                ORDER BY enqueued_at, source_event_id LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE q.destination_id = $1 AND q.source_event_id = due.source_event_id
        RETURNING q.source_event_id, q.organization_id, q.trace_kind, q.run, q.attempts`,
      [destinationId, now, limit, leaseUntil],
    );
    return rows.map((r) => ({
      destinationId,
      organizationId: r.organization_id,
      sourceEventId: r.source_event_id,
      traceKind: r.trace_kind as TraceKind,
      run: r.run,
      attempts: r.attempts,
    }));
  }

  async succeeded(destinationId: string, organizationId: string, sourceEventIds: string[], at: Date): Promise<void> {
    await this.pool.query(`DELETE FROM ${QUEUE} WHERE destination_id = $1 AND source_event_id = ANY($2::text[])`, [
      destinationId,
      sourceEventIds,
    ]);
    await this.pool.query(
      `INSERT INTO ${OUTCOMES} (destination_id, organization_id, last_attempt_at, last_success_at, consecutive_failures, delivered) VALUES ($1, $2, $3, $3, 0, $4)
       ON CONFLICT (destination_id) DO UPDATE SET last_attempt_at = $3, last_success_at = $3, consecutive_failures = 0, delivered = ${OUTCOMES}.delivered + $4`,
      [destinationId, organizationId, at, sourceEventIds.length],
    );
  }

  async failed(
    destinationId: string,
    organizationId: string,
    sourceEventIds: string[],
    at: Date,
    error: string,
    retry: DeliveryBackoff,
  ): Promise<{ dropped: number }> {
    const { rowCount: dropped } = await this.pool.query(
      `DELETE FROM ${QUEUE} WHERE destination_id = $1 AND source_event_id = ANY($2::text[]) AND attempts + 1 >= $3`,
      [destinationId, sourceEventIds, retry.maxAttempts],
    );
    await this.pool.query(
      `UPDATE ${QUEUE} SET attempts = attempts + 1, leased_until = NULL,
              next_attempt_at = $3::timestamptz + ($4::float8[])[LEAST(attempts + 1, cardinality($4::float8[]))] * interval '1 millisecond'
        WHERE destination_id = $1 AND source_event_id = ANY($2::text[])`,
      [destinationId, sourceEventIds, at, retry.delaysMs.length ? retry.delaysMs : [0]],
    );
    await this.pool.query(
      `INSERT INTO ${OUTCOMES} (destination_id, organization_id, last_attempt_at, last_failure_at, last_error, consecutive_failures, dropped) VALUES ($1, $2, $3, $3, $4, 1, $5)
       ON CONFLICT (destination_id) DO UPDATE SET last_attempt_at = $3, last_failure_at = $3, last_error = $4,
              consecutive_failures = ${OUTCOMES}.consecutive_failures + 1, dropped = ${OUTCOMES}.dropped + $5`,
      [destinationId, organizationId, at, error, dropped ?? 0],
    );
    return { dropped: dropped ?? 0 };
  }

  async discard(destinationId: string, sourceEventIds?: string[]): Promise<number> {
    const { rowCount } = sourceEventIds
      ? await this.pool.query(`DELETE FROM ${QUEUE} WHERE destination_id = $1 AND source_event_id = ANY($2::text[])`, [
          destinationId,
          sourceEventIds,
        ])
      : await this.pool.query(`DELETE FROM ${QUEUE} WHERE destination_id = $1`, [destinationId]);
    return rowCount ?? 0;
  }

  async forget(destinationId: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${QUEUE} WHERE destination_id = $1`, [destinationId]);
    await this.pool.query(`DELETE FROM ${OUTCOMES} WHERE destination_id = $1`, [destinationId]);
  }

  async outcomes(destinationIds: string[]): Promise<Map<string, DeliveryOutcome>> {
    const out = new Map<string, DeliveryOutcome>(destinationIds.map((id) => [id, { ...NO_OUTCOME }]));
    if (!destinationIds.length) return out;
    const { rows } = await this.pool.query<{
      destination_id: string;
      last_attempt_at: Date | null;
      last_success_at: Date | null;
      last_failure_at: Date | null;
      last_error: string | null;
      consecutive_failures: number;
      delivered: string;
      dropped: string;
    }>(`SELECT * FROM ${OUTCOMES} WHERE destination_id = ANY($1::text[])`, [destinationIds]);
    for (const r of rows) {
      out.set(r.destination_id, {
        lastAttemptAt: r.last_attempt_at,
        lastSuccessAt: r.last_success_at,
        lastFailureAt: r.last_failure_at,
        lastError: r.last_error,
        consecutiveFailures: r.consecutive_failures,
        delivered: Number(r.delivered),
        dropped: Number(r.dropped),
        pending: 0,
      });
    }
    const { rows: pending } = await this.pool.query<{ destination_id: string; n: string }>(
      `SELECT destination_id, count(*) AS n FROM ${QUEUE} WHERE destination_id = ANY($1::text[]) GROUP BY destination_id`,
      [destinationIds],
    );
    for (const p of pending) out.get(p.destination_id)!.pending = Number(p.n);
    return out;
  }
}

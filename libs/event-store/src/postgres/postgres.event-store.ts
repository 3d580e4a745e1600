import { randomUUID } from 'crypto';
import { Pool, PoolClient } from 'pg';
import { NewEvent, Position, RecordedEvent, START, WrongExpectedRevisionError } from '@larder/kernel';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  SubscribeOptions,
} from '../event-store.port';
import { Wakeable, pollAll } from '../wait';
import { sameBatch } from '../expected-revision';

export interface PostgresEventStoreOptions {
  /** Schema holding the `events` and `streams` tables (default `larder_events`). */
  schema?: string;
  /** Poll interval of subscriptions when nothing wakes them (ms). */
  pollMs?: number;
  /** Use LISTEN/NOTIFY to wake subscribers in other processes (server Postgres only). */
  listen?: boolean;
}

/** A row of `append_to_stream`: the events appended, the stored events of known ids, or one conflict row with the current revision. */
interface AppendRow {
  outcome: 'known' | 'appended' | 'conflict';
  event_id: string;
  stream_id: string;
  stream_revision: string | null;
  transaction_id: string | null;
  global_position: string | null;
}

interface EventRow {
  event_id: string;
  stream_id: string;
  stream_revision: string;
  type: string;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  transaction_id: string;
  global_position: string;
  created_at: Date;
}

/**
 * Event store on PostgreSQL (a server, or embedded PGlite served over the wire protocol).
 *
 * Gap-free global order: every event records the id of the transaction that appended it
 * (`pg_current_xact_id()`), and readers only return events whose transaction id is below the oldest
 * transaction still in flight (`pg_snapshot_xmin(pg_current_snapshot())`), ordered by
 * (transaction_id, global_position). An appender that took a lower sequence number but commits late
 * has a transaction id at or above that horizon, so it is not yet readable, and once it is, it sorts
 * after everything already read. No subscriber can skip it.
 */
export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres';
  private readonly schema: string;
  private readonly wakeable = new Wakeable();
  private listener: PoolClient | null = null;
  private readonly pollMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.schema = options.schema ?? 'larder_events';
    if (!/^[a-z_][a-z0-9_]*$/.test(this.schema)) throw new Error(`invalid schema name ${this.schema}`);
    this.pollMs = options.pollMs ?? 50;
  }

  private get t() {
    return { events: `"${this.schema}".events`, streams: `"${this.schema}".streams` };
  }

  async setup(): Promise<void> {
    // one simple query (one round trip): Postgres runs its statements as one transaction, the lock held to its end
    await this.pool.query(`SELECT pg_advisory_xact_lock(hashtext('larder-es-setup-${this.schema}'));
      CREATE SCHEMA IF NOT EXISTS "${this.schema}";
      CREATE TABLE IF NOT EXISTS ${this.t.events} (
        global_position bigserial PRIMARY KEY,
        transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id uuid NOT NULL UNIQUE,
        stream_id text NOT NULL,
        stream_revision bigint NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream_id, stream_revision)
      );
      CREATE INDEX IF NOT EXISTS events_tx_pos ON ${this.t.events} (transaction_id, global_position);
      CREATE TABLE IF NOT EXISTS ${this.t.streams} (
        stream_id text PRIMARY KEY,
        revision bigint NOT NULL
      );
      ${this.appendFunction()}`);
    if (this.options.listen) await this.startListening();
  }

  private async startListening(): Promise<void> {
    const client = await this.pool.connect();
    client.on('notification', () => this.wakeable.wake());
    client.on('error', () => undefined);
    await client.query(`LISTEN larder_events_${this.schema}`);
    this.listener = client;
  }

  /**
   * The append as one function, so that it is one statement and one round trip: the known-ids check
   * (an idempotent retry answers the stored events), the stream's row locked, the expected revision
   * checked (a conflict answers the current revision and stores nothing), the stream's revision and its
   * events written, and subscribers in other processes notified.
   */
  private appendFunction(): string {
    const { events, streams } = this.t;
    return `CREATE OR REPLACE FUNCTION "${this.schema}".append_to_stream(
        p_stream text, p_expected text, p_ids uuid[], p_types text[], p_data jsonb, p_metadata jsonb, p_channel text)
      RETURNS TABLE (outcome text, event_id uuid, stream_id text, stream_revision bigint, transaction_id xid8, global_position bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        cur bigint;
        first bigint;
      BEGIN
        RETURN QUERY SELECT 'known'::text, e.event_id, e.stream_id, e.stream_revision, e.transaction_id, e.global_position
          FROM ${events} e WHERE e.event_id = ANY(p_ids);
        IF FOUND THEN RETURN; END IF;
        SELECT s.revision INTO cur FROM ${streams} s WHERE s.stream_id = p_stream FOR UPDATE;
        IF NOT (p_expected = 'any' OR (p_expected = 'no_stream' AND cur IS NULL)
            OR (p_expected = 'stream_exists' AND cur IS NOT NULL) OR (cur IS NOT NULL AND p_expected = cur::text)) THEN
          RETURN QUERY SELECT 'conflict'::text, NULL::uuid, NULL::text, cur, NULL::xid8, NULL::bigint;
          RETURN;
        END IF;
        first := COALESCE(cur + 1, 0);
        IF cur IS NULL THEN
          INSERT INTO ${streams} (stream_id, revision) VALUES (p_stream, first + cardinality(p_ids) - 1);
        ELSE
          UPDATE ${streams} SET revision = first + cardinality(p_ids) - 1 WHERE ${streams}.stream_id = p_stream;
        END IF;
        RETURN QUERY WITH inserted AS (
          INSERT INTO ${events} (event_id, stream_id, stream_revision, type, data, metadata)
          SELECT t.id, p_stream, first + t.n - 1, t.type, p_data -> (t.n::int - 1), p_metadata -> (t.n::int - 1)
            FROM unnest(p_ids, p_types) WITH ORDINALITY AS t(id, type, n)
           ORDER BY t.n
          RETURNING ${events}.event_id, ${events}.stream_id, ${events}.stream_revision, ${events}.transaction_id, ${events}.global_position)
          SELECT 'appended'::text, i.event_id, i.stream_id, i.stream_revision, i.transaction_id, i.global_position FROM inserted i;
        IF p_channel IS NOT NULL THEN PERFORM pg_notify(p_channel, ''); END IF;
      END
      $fn$`;
  }

  async appendToStream(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    const withIds = events.map((e) => ({ ...e, id: e.id ?? randomUUID() }));
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await this.pool.query<AppendRow>(
          `SELECT * FROM "${this.schema}".append_to_stream($1, $2, $3::uuid[], $4::text[], $5::jsonb, $6::jsonb, $7)`,
          [
            stream,
            String(expected),
            withIds.map((e) => e.id),
            withIds.map((e) => e.type),
            // the events' data and metadata as one JSON array each: no array literal to escape and parse
            JSON.stringify(withIds.map((e) => e.data)),
            JSON.stringify(withIds.map((e) => e.metadata ?? { orgId: '' })),
            this.options.listen ? `larder_events_${this.schema}` : null,
          ],
        );
        const outcome = rows[0]?.outcome;
        if (outcome === 'known') return sameBatch(stream, withIds, rows.map(knownEvent))!;
        if (outcome === 'conflict') {
          const current = rows[0].stream_revision === null ? 'no_stream' : Number(rows[0].stream_revision);
          throw new WrongExpectedRevisionError(stream, expected, current);
        }
        if (outcome !== 'appended' || rows.length !== withIds.length)
          throw new Error(`append to ${stream}: the store answered ${rows.length} rows for ${withIds.length} events`);
        this.wakeable.wake();
        const lastRow = rows.reduce((a, b) => (BigInt(b.global_position!) > BigInt(a.global_position!) ? b : a));
        return {
          nextRevision: Math.max(...rows.map((r) => Number(r.stream_revision))),
          position: { commit: BigInt(lastRow.transaction_id!), prepare: BigInt(lastRow.global_position!) },
        };
      } catch (err) {
        const code = (err as { code?: string }).code;
        // 23505: a concurrent appender created the stream or stored the same event id first.
        if (code === '23505' && attempt < 3) {
          if (expected === 'no_stream' && (err as { constraint?: string }).constraint === 'streams_pkey') {
            throw new WrongExpectedRevisionError(stream, expected, 'stream created concurrently');
          }
          continue;
        }
        throw err;
      }
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const params: unknown[] = [stream, options.maxCount ?? null];
    let cond = '';
    if (options.fromRevision !== undefined) {
      params.push(options.fromRevision);
      cond = backwards ? 'AND stream_revision <= $3' : 'AND stream_revision >= $3';
    }
    const res = await this.pool.query<EventRow>(
      `SELECT * FROM ${this.t.events} WHERE stream_id = $1 ${cond}
        ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $2`,
      params,
    );
    return res.rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const res = await this.pool.query<EventRow>(
      `SELECT * FROM ${this.t.events}
        WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
          AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY transaction_id, global_position
        LIMIT $3`,
      [after.commit.toString(), after.prepare.toString(), options.maxCount ?? 1000],
    );
    return res.rows.map(toRecorded);
  }

  async headPosition(): Promise<Position> {
    const res = await this.pool.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id, global_position FROM ${this.t.events}
        WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    );
    if (!res.rowCount) return START;
    return { commit: BigInt(res.rows[0].transaction_id), prepare: BigInt(res.rows[0].global_position) };
  }

  subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<RecordedEvent> {
    return pollAll(
      (after) => this.readAll({ after, maxCount: 500 }),
      options.after ?? START,
      this.wakeable,
      this.pollMs,
      options.signal,
    );
  }

  async close(): Promise<void> {
    this.wakeable.wake();
    if (this.listener) {
      this.listener.release();
      this.listener = null;
    }
  }
}

function toRecorded(r: EventRow): RecordedEvent {
  return {
    id: r.event_id,
    type: r.type,
    data: r.data,
    metadata: r.metadata,
    streamId: r.stream_id,
    revision: Number(r.stream_revision),
    position: { commit: BigInt(r.transaction_id), prepare: BigInt(r.global_position) },
    createdAt: r.created_at,
  };
}

/** A stored event named by an append's known ids: what `sameBatch` compares (its stream, revision and position). */
function knownEvent(r: AppendRow): RecordedEvent {
  return {
    id: r.event_id,
    type: '',
    data: {},
    metadata: { orgId: '' },
    streamId: r.stream_id,
    revision: Number(r.stream_revision),
    position: { commit: BigInt(r.transaction_id!), prepare: BigInt(r.global_position!) },
    createdAt: new Date(0),
  };
}

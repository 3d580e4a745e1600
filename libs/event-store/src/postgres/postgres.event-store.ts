import { randomUUID } from 'crypto';
import { Pool, PoolClient } from 'pg';
import { jsonbParameter, NewEvent, Position, RecordedEvent, START, WrongExpectedRevisionError } from '@larder/kernel';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  StreamAppend,
  StreamAppendOutcome,
  SubscribeOptions,
} from '../event-store.port';
import { AppendGroups, PreparedAppend } from '../append-groups';
import { AppendRow, appendToStreamsFunction } from './append-function';
import { Wakeable, pollAll } from '../wait';
import { sameBatch } from '../expected-revision';

export interface PostgresEventStoreOptions {
  /** Schema holding the `events` and `streams` tables (default `larder_events`). */
  schema?: string;
  /** Poll interval of subscriptions when nothing wakes them (ms). */
  pollMs?: number;
  /** Use LISTEN/NOTIFY to wake subscribers in other processes (server Postgres only). */
  listen?: boolean;
  /**
   * Appends run as at most this many statements at once (default 4); the appends that come meanwhile
   * wait and go together as the next statement, one transaction (group commit). 1 for the embedded
   * database, whose one backend runs statements one at a time anyway.
   */
  appendStatements?: number;
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
  private readonly groups: AppendGroups;

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.schema = options.schema ?? 'larder_events';
    if (!/^[a-z_][a-z0-9_]*$/.test(this.schema)) throw new Error(`invalid schema name ${this.schema}`);
    this.pollMs = options.pollMs ?? 50;
    this.groups = new AppendGroups(
      options.appendStatements ?? 4,
      (group) => this.appendStatement(group),
      (a) => this.appendAlone(a),
    );
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
      ${appendToStreamsFunction(this.schema)}`);
    if (this.options.listen) await this.startListening();
  }

  private async startListening(): Promise<void> {
    const client = await this.pool.connect();
    client.on('notification', () => this.wakeable.wake());
    client.on('error', () => undefined);
    await client.query(`LISTEN larder_events_${this.schema}`);
    this.listener = client;
  }

  async appendToStream(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const [outcome] = await this.appendToStreams([{ stream, events, expectedRevision: options.expectedRevision }]);
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    const outcomes: Array<StreamAppendOutcome | null> = appends.map((a) =>
      a.events.length ? null : { ok: false, error: new Error('append needs at least one event') },
    );
    const valid = appends.filter((a) => a.events.length);
    const stored = await this.groups.append(
      valid.map((a) => ({
        stream: a.stream,
        expectedRevision: a.expectedRevision ?? 'any',
        events: a.events.map((e) => ({ ...e, id: e.id ?? randomUUID() })),
      })),
    );
    let next = 0;
    return outcomes.map((o) => o ?? stored[next++]);
  }

  /** One statement for a group of appends (`append_to_streams`); throws when the statement fails (nothing stored). */
  private async appendStatement(group: readonly PreparedAppend[]): Promise<StreamAppendOutcome[]> {
    const all = group.flatMap((a) => a.events);
    const { rows } = await this.pool.query<AppendRow>(
      `SELECT * FROM "${this.schema}".append_to_streams($1::text[], $2::text[], $3::int[], $4::uuid[], $5::text[], $6::jsonb, $7::jsonb, $8)`,
      [
        group.map((a) => a.stream),
        group.map((a) => String(a.expectedRevision)),
        group.map((a) => a.events.length),
        all.map((e) => e.id),
        all.map((e) => e.type),
        jsonbParameter(all.map((e) => e.data)),
        jsonbParameter(all.map((e) => e.metadata ?? { orgId: '' })),
        this.options.listen ? `larder_events_${this.schema}` : null,
      ],
    );
    const byAppend = group.map((): AppendRow[] => []);
    for (const r of rows) byAppend[Number(r.append_no) - 1]?.push(r);
    const outcomes = group.map((a, i) => appendOutcome(a, byAppend[i]));
    if (outcomes.some((o) => o.ok)) this.wakeable.wake();
    return outcomes;
  }

  /**
   * One append alone, after its group's statement failed. 23505: a concurrent appender (another
   * connection) created the stream or stored the same event id first: tried again, and a `no_stream`
   * append that lost the stream's creation is a conflict.
   */
  private async appendAlone(a: PreparedAppend): Promise<StreamAppendOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.appendStatement([a]))[0];
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === '23505' && attempt < 3) {
          if (a.expectedRevision === 'no_stream' && (err as { constraint?: string }).constraint === 'streams_pkey')
            return {
              ok: false,
              error: new WrongExpectedRevisionError(a.stream, a.expectedRevision, 'stream created concurrently'),
            };
          continue;
        }
        return { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
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

/** One append's outcome from its rows of `append_to_streams`. */
function appendOutcome(a: PreparedAppend, rows: AppendRow[]): StreamAppendOutcome {
  try {
    const outcome = rows[0]?.outcome;
    if (outcome === 'known') return { ok: true, result: sameBatch(a.stream, a.events, rows.map(knownEvent))! };
    if (outcome === 'conflict') {
      const current = rows[0].stream_revision === null ? 'no_stream' : Number(rows[0].stream_revision);
      throw new WrongExpectedRevisionError(a.stream, a.expectedRevision, current);
    }
    if (outcome !== 'appended' || rows.length !== a.events.length)
      throw new Error(`append to ${a.stream}: the store answered ${rows.length} rows for ${a.events.length} events`);
    const last = rows.reduce((x, y) => (BigInt(y.global_position!) > BigInt(x.global_position!) ? y : x));
    return {
      ok: true,
      result: {
        nextRevision: Math.max(...rows.map((r) => Number(r.stream_revision))),
        position: { commit: BigInt(last.transaction_id!), prepare: BigInt(last.global_position!) },
      },
    };
  } catch (err) {
    return { ok: false, error: err as Error };
  }
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

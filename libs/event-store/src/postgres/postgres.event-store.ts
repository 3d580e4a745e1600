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
import { checkExpected, sameBatch } from '../expected-revision';

export interface PostgresEventStoreOptions {
  /** Schema holding the `events` and `streams` tables (default `larder_events`). */
  schema?: string;
  /** Poll interval of subscriptions when nothing wakes them (ms). */
  pollMs?: number;
  /** Use LISTEN/NOTIFY to wake subscribers in other processes (server Postgres only). */
  listen?: boolean;
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
      )`);
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
    const expected = options.expectedRevision ?? 'any';
    const withIds = events.map((e) => ({ ...e, id: e.id ?? randomUUID() }));
    for (let attempt = 0; ; attempt++) {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        const known = await client.query<EventRow>(`SELECT * FROM ${this.t.events} WHERE event_id = ANY($1::uuid[])`, [
          withIds.map((e) => e.id),
        ]);
        if (known.rowCount) {
          await client.query('ROLLBACK');
          return sameBatch(stream, withIds, known.rows.map(toRecorded))!;
        }
        const cur = await client.query<{ revision: string }>(
          `SELECT revision FROM ${this.t.streams} WHERE stream_id = $1 FOR UPDATE`,
          [stream],
        );
        const current = cur.rowCount ? Number(cur.rows[0].revision) : 'no_stream';
        checkExpected(stream, expected, current);
        const first = current === 'no_stream' ? 0 : current + 1;
        const last = first + withIds.length - 1;
        if (current === 'no_stream') {
          await client.query(`INSERT INTO ${this.t.streams} (stream_id, revision) VALUES ($1, $2)`, [stream, last]);
        } else {
          await client.query(`UPDATE ${this.t.streams} SET revision = $2 WHERE stream_id = $1`, [stream, last]);
        }
        const inserted = await client.query<{ transaction_id: string; global_position: string }>(
          `INSERT INTO ${this.t.events} (event_id, stream_id, stream_revision, type, data, metadata)
           SELECT id, $2, rev, type, data, metadata
             FROM unnest($1::uuid[], $3::bigint[], $4::text[], $5::jsonb[], $6::jsonb[]) AS t(id, rev, type, data, metadata)
            ORDER BY rev
           RETURNING transaction_id, global_position`,
          [
            withIds.map((e) => e.id),
            stream,
            withIds.map((_, i) => first + i),
            withIds.map((e) => e.type),
            withIds.map((e) => JSON.stringify(e.data)),
            withIds.map((e) => JSON.stringify(e.metadata ?? { orgId: '' })),
          ],
        );
        if (this.options.listen) await client.query(`SELECT pg_notify($1, '')`, [`larder_events_${this.schema}`]);
        await client.query('COMMIT');
        this.wakeable.wake();
        const lastRow = inserted.rows.reduce((a, b) => (BigInt(b.global_position) > BigInt(a.global_position) ? b : a));
        return {
          nextRevision: last,
          position: { commit: BigInt(lastRow.transaction_id), prepare: BigInt(lastRow.global_position) },
        };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        const code = (err as { code?: string }).code;
        // 23505: a concurrent appender created the stream or stored the same event id first.
        if (code === '23505' && attempt < 3) {
          if (expected === 'no_stream' && (err as { constraint?: string }).constraint === 'streams_pkey') {
            throw new WrongExpectedRevisionError(stream, expected, 'stream created concurrently');
          }
          continue;
        }
        throw err;
      } finally {
        client.release();
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

import { DataSource } from 'typeorm';

export const STUCK_TABLE = 'larder_stuck_loops';

/**
 * A loop that cannot get past an event. It keeps retrying with capped back-off; this is what
 * `status()`, `npm run cli -- projections` and `GET /health/ready` show until the event applies.
 */
export interface StuckInfo {
  /** The event it cannot apply; null when the failure is not an event's (reading the log or its checkpoint failed). */
  eventId: string | null;
  type: string | null;
  stream: string | null;
  position: string | null;
  error: string;
  attempts: number;
  since: Date;
}

/** One row per stuck loop, so that another process (the CLI, an API beside a separate worker) sees it too. */
export async function setupStuckLoops(ds: DataSource): Promise<void> {
  // one simple query: its statements run as one transaction, the lock held to its end (see setupCheckpoints)
  await ds.query(`SELECT pg_advisory_xact_lock(hashtext('larder-stuck-loops-setup'));
    CREATE TABLE IF NOT EXISTS ${STUCK_TABLE} (
      name text PRIMARY KEY,
      event_id text,
      type text,
      stream text,
      position text,
      error text NOT NULL,
      attempts int NOT NULL,
      since timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
}

/** The names of the loops with a stuck row. */
export async function stuckLoopNames(ds: DataSource): Promise<Set<string>> {
  const rows: Array<{ name: string }> = await ds.query(`SELECT name FROM ${STUCK_TABLE}`);
  return new Set(rows.map((r) => r.name));
}

export async function recordStuck(ds: DataSource, name: string, s: StuckInfo): Promise<void> {
  await ds.query(
    `INSERT INTO ${STUCK_TABLE} (name, event_id, type, stream, position, error, attempts, since, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (name) DO UPDATE SET event_id = $2, type = $3, stream = $4, position = $5, error = $6, attempts = $7, since = $8, updated_at = now()`,
    [name, s.eventId, s.type, s.stream, s.position, s.error.slice(0, 2000), s.attempts, s.since],
  );
}

export async function clearStuck(ds: DataSource, name: string): Promise<void> {
  await ds.query(`DELETE FROM ${STUCK_TABLE} WHERE name = $1`, [name]);
}

export async function readStuck(ds: DataSource): Promise<Map<string, StuckInfo>> {
  const rows: Array<{
    name: string;
    event_id: string | null;
    type: string | null;
    stream: string | null;
    position: string | null;
    error: string;
    attempts: number;
    since: Date;
  }> = await ds.query(`SELECT * FROM ${STUCK_TABLE}`);
  return new Map(
    rows.map((r) => [
      r.name,
      {
        eventId: r.event_id,
        type: r.type,
        stream: r.stream,
        position: r.position,
        error: r.error,
        attempts: Number(r.attempts),
        since: new Date(r.since),
      },
    ]),
  );
}

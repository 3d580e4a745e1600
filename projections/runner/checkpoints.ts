import { DataSource, EntityManager } from 'typeorm';
import { Position, START } from '@larder/kernel';

export const CHECKPOINT_TABLE = 'larder_checkpoints';

export interface CheckpointRow {
  name: string;
  kind: 'projection' | 'reactor';
  version: number;
  position: Position;
  updatedAt: Date | null;
}

export async function setupCheckpoints(ds: DataSource): Promise<void> {
  // one simple query of two statements: Postgres runs them as one transaction (the lock held to its
  // end), as a transaction block around them would, in one round trip instead of four
  await ds.query(`SELECT pg_advisory_xact_lock(hashtext('larder-checkpoints-setup'));
    CREATE TABLE IF NOT EXISTS ${CHECKPOINT_TABLE} (
      name text PRIMARY KEY,
      kind text NOT NULL,
      version int NOT NULL,
      commit_pos numeric(20) NOT NULL DEFAULT 0,
      prepare_pos numeric(20) NOT NULL DEFAULT 0,
      updated_at timestamptz
    )`);
}

function toRow(r: {
  name: string;
  kind: string;
  version: number;
  commit_pos: string;
  prepare_pos: string;
  updated_at: Date | null;
}): CheckpointRow {
  return {
    name: r.name,
    kind: r.kind as CheckpointRow['kind'],
    version: Number(r.version),
    position: { commit: BigInt(r.commit_pos), prepare: BigInt(r.prepare_pos) },
    updatedAt: r.updated_at,
  };
}

/** Creates the checkpoint rows of `values` ((name, kind, version) tuples) if missing, locks them by a no-op update, and answers them. */
const lockStatement = (values: string) =>
  `INSERT INTO ${CHECKPOINT_TABLE} (name, kind, version) VALUES ${values} ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING *`;

/** Writes checkpoint `name`'s version and position (each an SQL expression: a parameter or a literal). */
const writeStatement = (name: string, version: string, commit: string, prepare: string) =>
  `UPDATE ${CHECKPOINT_TABLE} SET version = ${version}, commit_pos = ${commit}, prepare_pos = ${prepare}, updated_at = now() WHERE name = ${name}`;

/** Locks the checkpoint row for the rest of the transaction (creating it at START if missing). */
export async function lockCheckpoint(
  m: EntityManager,
  name: string,
  kind: CheckpointRow['kind'],
  version: number,
): Promise<CheckpointRow> {
  return (await lockCheckpoints(m, [{ name, kind, version }])).get(name)!;
}

/**
 * `lockCheckpoint` for several names in one statement (one round trip per batch on the shared embedded
 * backend): each row created if missing, locked by the no-op update, and returned as it was, by name.
 * The names must differ.
 */
export async function lockCheckpoints(
  m: EntityManager,
  entries: ReadonlyArray<{ name: string; kind: CheckpointRow['kind']; version: number }>,
): Promise<Map<string, CheckpointRow>> {
  if (new Set(entries.map((e) => e.name)).size !== entries.length)
    throw new Error('lockCheckpoints: the names must differ');
  if (!entries.length) return new Map();
  const values = entries.map((_, i) => `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3}::int)`).join(', ');
  const rows: Array<Parameters<typeof toRow>[0]> = await m.query(
    lockStatement(values),
    entries.flatMap((e) => [e.name, e.kind, e.version]),
  );
  return new Map(rows.map((r) => [r.name, toRow(r)]));
}

/**
 * Runs `work` in a transaction with the checkpoint row of `entry` locked (created at START if missing),
 * in two round trips besides the work's own statements: the transaction begins with the lock, as one
 * simple query, and ends with the checkpoint's write (when `work` answers a position to write) and the
 * commit, as another. A projection's batch on the single-session embedded database holds the backend
 * for its whole transaction, so each round trip saved is saved for every other connection too. `work`
 * issues its statements through `manager.query`; a failure rolls everything back.
 */
export async function withLockedCheckpoint<T>(
  ds: DataSource,
  entry: { name: string; kind: CheckpointRow['kind']; version: number },
  work: (manager: EntityManager, locked: CheckpointRow) => Promise<{ write: Position | null; result: T }>,
): Promise<T> {
  const { name, kind, version } = entry;
  if (!Number.isInteger(version)) throw new Error(`checkpoint ${name}: the version must be an integer`);
  const qr = ds.createQueryRunner();
  try {
    // the pg client itself: a simple query of several statements answers one result each
    const client = (await qr.connect()) as { query(text: string): Promise<Array<{ rows: unknown[] }>> };
    try {
      const [, locked] = await client.query(
        `START TRANSACTION; ${lockStatement(`(${literal(name)}, ${literal(kind)}, ${version})`)}`,
      );
      const done = await work(qr.manager, toRow(locked.rows[0] as Parameters<typeof toRow>[0]));
      const p = done.write;
      await client.query(
        p ? `${writeStatement(literal(name), `${version}`, `${p.commit}`, `${p.prepare}`)}; COMMIT` : 'COMMIT',
      );
      return done.result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await qr.release();
  }
}

/** A string as an SQL literal. */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export async function writeCheckpoint(
  m: EntityManager,
  name: string,
  version: number,
  position: Position,
): Promise<void> {
  await m.query(writeStatement('$1', '$2', '$3', '$4'), [
    name,
    version,
    position.commit.toString(),
    position.prepare.toString(),
  ]);
}

/**
 * Writes a checkpoint in one autocommit statement (creating the row if missing): for loops that do
 * not write rows beside it (reactors), so that no transaction holds the shared embedded backend
 * across round trips.
 */
export async function upsertCheckpoint(
  ds: DataSource | EntityManager,
  name: string,
  kind: CheckpointRow['kind'],
  version: number,
  position: Position,
): Promise<void> {
  await ds.query(
    `INSERT INTO ${CHECKPOINT_TABLE} (name, kind, version, commit_pos, prepare_pos, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, commit_pos = excluded.commit_pos, prepare_pos = excluded.prepare_pos, updated_at = excluded.updated_at`,
    [name, kind, version, position.commit.toString(), position.prepare.toString()],
  );
}

/**
 * Moves a checkpoint to `to` in one autocommit statement, only while it stands at one of `expected`
 * (a missing row counts as START and is created): a loop's position moved past events it does not
 * handle, without a transaction that would hold the shared embedded backend across round trips.
 * Answers null when it moved, else where the checkpoint stands (another runner or a replay moved it).
 */
export async function moveCheckpoint(
  ds: DataSource | EntityManager,
  name: string,
  kind: CheckpointRow['kind'],
  version: number,
  expected: readonly [Position] | readonly [Position, Position],
  to: Position,
): Promise<Position | null> {
  const [a, b = a] = expected;
  const rows: Array<{ moved: number; commit_pos: string | null; prepare_pos: string | null }> = await ds.query(
    `WITH updated AS (
       UPDATE ${CHECKPOINT_TABLE} SET version = $3::int, commit_pos = $4::numeric, prepare_pos = $5::numeric, updated_at = now()
       WHERE name = $1 AND ((commit_pos = $6::numeric AND prepare_pos = $7::numeric) OR (commit_pos = $8::numeric AND prepare_pos = $9::numeric))
       RETURNING 1),
     inserted AS (
       INSERT INTO ${CHECKPOINT_TABLE} (name, kind, version, commit_pos, prepare_pos, updated_at)
       SELECT $1::text, $2::text, $3::int, $4::numeric, $5::numeric, now()
       WHERE (($6::numeric = 0 AND $7::numeric = 0) OR ($8::numeric = 0 AND $9::numeric = 0))
         AND NOT EXISTS (SELECT 1 FROM ${CHECKPOINT_TABLE} WHERE name = $1)
       ON CONFLICT (name) DO NOTHING
       RETURNING 1)
     SELECT ((SELECT count(*) FROM updated) + (SELECT count(*) FROM inserted))::int AS moved, c.commit_pos, c.prepare_pos
     FROM (SELECT 1) one LEFT JOIN ${CHECKPOINT_TABLE} c ON c.name = $1`,
    [name, kind, version, ...[to, a, b].flatMap((p) => [p.commit.toString(), p.prepare.toString()])],
  );
  const r = rows[0];
  if (r.moved > 0) return null;
  return r.commit_pos === null ? START : { commit: BigInt(r.commit_pos), prepare: BigInt(r.prepare_pos!) };
}

export async function readCheckpoints(ds: DataSource | EntityManager): Promise<CheckpointRow[]> {
  const rows: Array<Parameters<typeof toRow>[0]> = await ds.query(
    `SELECT * FROM ${CHECKPOINT_TABLE} ORDER BY kind, name`,
  );
  return rows.map(toRow);
}

export async function readCheckpoint(ds: DataSource, name: string): Promise<Position> {
  const rows: Array<Parameters<typeof toRow>[0]> = await ds.query(`SELECT * FROM ${CHECKPOINT_TABLE} WHERE name = $1`, [
    name,
  ]);
  return rows.length ? toRow(rows[0]).position : START;
}

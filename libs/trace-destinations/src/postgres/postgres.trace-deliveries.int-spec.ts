import { Pool } from 'pg';
import { createServerTestDatabase, TestDatabase } from '../../../database/src/testing/test-databases';
import type { FinishedRun } from '../export/finished-run';
import { PostgresTraceDeliveries } from './postgres.trace-deliveries';

describe('PostgresTraceDeliveries.setup, on the machine’s PostgreSQL', () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 4 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('creates the queue, its index and the outcomes table, and again without error', async () => {
    await new PostgresTraceDeliveries(pool).setup();
    await new PostgresTraceDeliveries(pool).setup();
    const tables = (
      await pool.query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'trace_deliver%' ORDER BY 1`)
    ).rows.map((r: { tablename: string }) => r.tablename);
    expect(tables).toEqual(['trace_deliveries_v1', 'trace_delivery_outcomes_v1']);
    const indexes = (
      await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'trace_deliveries_v1' ORDER BY 1`)
    ).rows.map((r: { indexname: string }) => r.indexname);
    expect(indexes).toEqual(['trace_deliveries_v1_due', 'trace_deliveries_v1_pkey']);
  });

  it('sets up a fresh database from several processes at once (the setup takes a lock)', async () => {
    const fresh = await createServerTestDatabase();
    const pools = [0, 1, 2, 3].map(() => new Pool({ connectionString: fresh.url, max: 1 }));
    try {
      await Promise.all(pools.map((p) => new PostgresTraceDeliveries(p).setup()));
      const tables = (
        await pools[0].query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'trace_deliver%' ORDER BY 1`)
      ).rows.map((r: { tablename: string }) => r.tablename);
      expect(tables).toEqual(['trace_deliveries_v1', 'trace_delivery_outcomes_v1']);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await fresh.drop();
    }
  });

  it('schedules each failed delivery by its own failed attempts, and drops it after the last', async () => {
    const deliveries = new PostgresTraceDeliveries(pool);
    await deliveries.setup();
    const t0 = new Date('2026-01-01T00:00:00Z');
    const item = (id: string) => ({
      destinationId: 'dst_backoff',
      organizationId: 'org_1',
      sourceEventId: id,
      traceKind: 'agentic_search' as const,
      run: {} as FinishedRun,
    });
    await deliveries.enqueue([item('a')], t0);
    const backoff = { maxAttempts: 3, delaysMs: [1_000, 4_000, 9_000] };
    await deliveries.failed('dst_backoff', 'org_1', ['a'], t0, 'down', backoff);
    await deliveries.enqueue([item('b')], t0);
    await deliveries.failed('dst_backoff', 'org_1', ['a', 'b'], t0, 'down', backoff);
    const due = async () =>
      (
        await pool.query(
          `SELECT source_event_id, attempts, next_attempt_at FROM trace_deliveries_v1 WHERE destination_id = 'dst_backoff' ORDER BY 1`,
        )
      ).rows.map((r: { source_event_id: string; attempts: number; next_attempt_at: Date }) => [
        r.source_event_id,
        r.attempts,
        r.next_attempt_at.getTime() - t0.getTime(),
      ]);
    expect(await due()).toEqual([
      ['a', 2, 4_000],
      ['b', 1, 1_000],
    ]);
    expect(await deliveries.failed('dst_backoff', 'org_1', ['a', 'b'], t0, 'down', backoff)).toEqual({ dropped: 1 });
    expect(await due()).toEqual([['b', 2, 4_000]]);
  });
});

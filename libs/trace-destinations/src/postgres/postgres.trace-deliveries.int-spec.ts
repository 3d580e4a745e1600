import { Pool } from 'pg';
import { createServerTestDatabase, TestDatabase } from '../../../database/src/testing/test-databases';
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
    const tables = (await pool.query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'trace_deliver%' ORDER BY 1`)).rows.map((r: { tablename: string }) => r.tablename);
    expect(tables).toEqual(['trace_deliveries_v1', 'trace_delivery_outcomes_v1']);
    const indexes = (await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'trace_deliveries_v1' ORDER BY 1`)).rows.map((r: { indexname: string }) => r.indexname);
    expect(indexes).toEqual(['trace_deliveries_v1_due', 'trace_deliveries_v1_pkey']);
  });

  it('sets up a fresh database from several processes at once (the setup takes a lock)', async () => {
    const fresh = await createServerTestDatabase();
    const pools = [0, 1, 2, 3].map(() => new Pool({ connectionString: fresh.url, max: 1 }));
    try {
      await Promise.all(pools.map((p) => new PostgresTraceDeliveries(p).setup()));
      const tables = (await pools[0].query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'trace_deliver%' ORDER BY 1`)).rows.map((r: { tablename: string }) => r.tablename);
      expect(tables).toEqual(['trace_deliveries_v1', 'trace_delivery_outcomes_v1']);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await fresh.drop();
    }
  });
});

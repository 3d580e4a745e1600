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

  // (two setups at once on a fresh database fail on the catalog, as they did before it was one query: it takes no lock)
  it('creates the queue, its index and the outcomes table, and again without error', async () => {
    await new PostgresTraceDeliveries(pool).setup();
    await new PostgresTraceDeliveries(pool).setup();
    const tables = (await pool.query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'trace_deliver%' ORDER BY 1`)).rows.map((r: { tablename: string }) => r.tablename);
    expect(tables).toEqual(['trace_deliveries_v1', 'trace_delivery_outcomes_v1']);
    const indexes = (await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'trace_deliveries_v1' ORDER BY 1`)).rows.map((r: { indexname: string }) => r.indexname);
    expect(indexes).toEqual(['trace_deliveries_v1_due', 'trace_deliveries_v1_pkey']);
  });
});

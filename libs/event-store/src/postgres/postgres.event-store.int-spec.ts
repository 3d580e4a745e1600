import { Pool } from 'pg';
import {
  createEmbeddedTestDatabase,
  createServerTestDatabase,
  TestDatabase,
} from '../../../database/src/testing/test-databases';
import { eventStoreContract, readAllAfter } from '../testing/event-store.contract';
import { PostgresEventStore } from './postgres.event-store';
import { comparePositions } from '@larder/kernel';

const variants: Array<[string, () => Promise<TestDatabase>]> = [
  ['postgres (machine server)', () => createServerTestDatabase()],
  ['postgres (embedded PGlite over the wire protocol)', () => createEmbeddedTestDatabase()],
];

for (const [name, create] of variants) {
  eventStoreContract(name, async () => {
    const db = await create();
    const pool = new Pool({ connectionString: db.url, max: 10 });
    pool.on('error', () => undefined); // idle clients are cut when the database is dropped
    const store = new PostgresEventStore(pool, { schema: 'es_contract', pollMs: 20 });
    await store.setup();
    return {
      store,
      close: async () => {
        await store.close();
        await pool.end();
        await db.drop();
      },
    };
  });
}

describe('PostgresEventStore: late commit with a lower sequence number (machine server)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let store: PostgresEventStore;
  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 10 });
    pool.on('error', () => undefined); // idle clients are cut when the database is dropped
    store = new PostgresEventStore(pool, { schema: 'es_gap', pollMs: 20 });
    await store.setup();
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await db.drop();
  });

  it('does not show an event committed after a still-open lower sequence number, then shows both in order', async () => {
    const head = await store.headPosition();
    // Appender A takes a sequence number first and holds its transaction open.
    const a = await pool.connect();
    await a.query('BEGIN');
    const aRow = await a.query<{ global_position: string }>(
      `INSERT INTO es_gap.events (event_id, stream_id, stream_revision, type, data, metadata)
       VALUES (gen_random_uuid(), 'slow-1', 0, 'Slow', '{}', '{"orgId":"o"}') RETURNING global_position`,
    );
    await a.query(`INSERT INTO es_gap.streams (stream_id, revision) VALUES ('slow-1', 0)`);
    // Appender B takes a higher sequence number and commits first.
    const b = await store.appendToStream('fast-1', [{ type: 'Fast', data: {}, metadata: { orgId: 'o' } }]);
    expect(b.position.prepare).toBeGreaterThan(BigInt(aRow.rows[0].global_position));

    // A subscriber reading now must not get B: it would then skip A forever.
    const visible = await readAllAfter(store, head, () => true);
    expect(visible.map((e) => e.type)).toEqual([]);

    await a.query('COMMIT');
    a.release();
    const both = await readAllAfter(store, head, () => true);
    expect(both.map((e) => e.type).sort()).toEqual(['Fast', 'Slow']);
    expect(comparePositions(both[0].position, both[1].position)).toBeLessThan(0);
  });

  it('a live subscription receives every event exactly once when lower sequence numbers commit late', async () => {
    const head = await store.headPosition();
    const controller = new AbortController();
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const e of store.subscribeToAll({ after: head, signal: controller.signal })) {
        seen.push(e.type);
        if (seen.length === 2) controller.abort();
      }
    })();
    const a = await pool.connect();
    await a.query('BEGIN');
    await a.query(
      `INSERT INTO es_gap.events (event_id, stream_id, stream_revision, type, data, metadata)
       VALUES (gen_random_uuid(), 'slow-2', 0, 'Slow', '{}', '{"orgId":"o"}')`,
    );
    await store.appendToStream('fast-2', [{ type: 'Fast', data: {}, metadata: { orgId: 'o' } }]);
    await new Promise((r) => setTimeout(r, 200)); // the subscriber polls several times meanwhile
    expect(seen).toEqual([]);
    await a.query('COMMIT');
    a.release();
    await consumer;
    expect(seen.sort()).toEqual(['Fast', 'Slow']);
  });
});

import { randomBytes, randomUUID } from 'crypto';
import { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { ConsistencyTimeoutError, Position, RecordedEvent, START, positionToString } from '@larder/kernel';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { createServerTestDatabase, TestDatabase } from '../../libs/database/src/testing/test-databases';
import { Projection, Reactor } from './projection';
import { ProjectionRunner } from './projection-runner';
import { readStuck, recordStuck } from './stuck-loops';

/** A projection that writes one row per `ThingHappened`, and throws on the poisoned one while `fault` holds. */
function thingsProjection(name: string, table: string, fault: { on: boolean }): Projection {
  return {
    name,
    version: 1,
    handles: ['ThingHappened'],
    tables: [table],
    async setup(m: EntityManager) {
      await m.query(`CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, n int NOT NULL)`);
    },
    async apply(e: RecordedEvent, m: EntityManager) {
      if (fault.on && (e.data as { poison?: boolean }).poison)
        throw new Error(`${name} cannot apply the poisoned thing`);
      await m.query(`INSERT INTO ${table} (id, n) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [
        e.id,
        (e.data as { n: number }).n,
      ]);
    },
  };
}

describe('a projection that cannot apply an event, on the machine’s PostgreSQL', () => {
  let db: TestDatabase;
  let pool: Pool;
  let ds: DataSource;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;
  const tag = randomBytes(4).toString('hex');
  const fault = { on: true };
  const reactorFault = { on: true };
  const reacted: string[] = [];
  let poison: RecordedEvent;
  let last: Position = START;

  const append = async (n: number, poisoned = false) => {
    const r = await store.appendToStream(`thing-${randomUUID()}`, [
      { type: 'ThingHappened', data: { n, ...(poisoned ? { poison: true } : {}) }, metadata: { orgId: 'org' } },
    ]);
    last = r.position;
    runner.nudge();
    return r;
  };
  const until = async (cond: () => Promise<boolean> | boolean, ms = 15_000) => {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const count = async (table: string) => Number((await ds.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);

  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 8 });
    pool.on('error', () => undefined);
    ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
    store = new PostgresEventStore(pool, { pollMs: 20 });
    await store.setup();
    const reactor: Reactor = {
      name: `picky-reactor-${tag}`,
      handles: ['ThingHappened'],
      async handle(e) {
        if (reactorFault.on && (e.data as { poison?: boolean }).poison)
          throw new Error('the reactor refuses the poisoned thing');
        reacted.push(e.id);
      },
    };
    runner = new ProjectionRunner(
      store,
      ds,
      [
        thingsProjection('good-things', `good_things_${tag}`, { on: false }),
        thingsProjection('fragile-things', `fragile_things_${tag}`, fault),
      ],
      [reactor],
      {
        pollMs: 10,
        consistencyTimeoutMs: 600,
        retryBaseMs: 20,
        retryMaxMs: 200,
      },
    );
    await runner.setup();
    runner.start();
    for (let n = 0; n < 20; n++) {
      await append(n, n === 9);
    }
    // readers see an event once every older transaction on the server has ended (other databases' too)
    await until(async () => {
      const all = await store.readAll({ maxCount: 100 });
      poison = all.find((e) => (e.data as { poison?: boolean }).poison)!;
      return !!poison && all.length === 20;
    });
  }, 60_000);

  afterAll(async () => {
    await runner.stop();
    await ds.destroy();
    await store.close();
    await pool.end();
    await db.drop();
  });

  it('the other projection applies every event past it', async () => {
    await runner.waitFor(['good-things'], last);
    expect(await count(`good_things_${tag}`)).toBe(20);
    // the stuck one applied everything before the poisoned event, and nothing after
    await until(async () => (await count(`fragile_things_${tag}`)) === 9);
    await new Promise((r) => setTimeout(r, 300));
    expect(await count(`fragile_things_${tag}`)).toBe(9);
  });

  it('status() shows it stuck on that event, with the error, and the others not stuck', async () => {
    await until(
      async () => ((await runner.status()).find((s) => s.name === 'fragile-things')?.stuck?.attempts ?? 0) >= 2,
    );
    const status = await runner.status();
    const fragile = status.find((s) => s.name === 'fragile-things')!;
    expect(fragile.stuck).toMatchObject({
      eventId: poison.id,
      type: 'ThingHappened',
      stream: poison.streamId,
      position: positionToString(poison.position),
    });
    expect(fragile.stuck!.error).toBe('fragile-things cannot apply the poisoned thing');
    expect(fragile.stuck!.since).toBeInstanceOf(Date);
    expect(fragile.lag).toBe(11); // the poisoned event and the ten after it
    expect(fragile.running).toBe(true);
    const good = status.find((s) => s.name === 'good-things')!;
    expect(good).toMatchObject({ stuck: null, lag: 0, running: true });
    const reactor = status.find((s) => s.name === `picky-reactor-${tag}`)!;
    expect(reactor.stuck).toMatchObject({ eventId: poison.id, error: 'the reactor refuses the poisoned thing' });
  });

  it('another process (the CLI, an API beside a worker) sees it stuck through the stuck-loops table', async () => {
    await until(async () => (await readStuck(ds)).get('fragile-things')?.eventId === poison.id);
    const elsewhere = new ProjectionRunner(store, ds, [], [], { runLoops: false });
    const fragile = (await elsewhere.status()).find((s) => s.name === 'fragile-things')!;
    expect(fragile).toMatchObject({
      running: null,
      stuck: { eventId: poison.id, type: 'ThingHappened', error: 'fragile-things cannot apply the poisoned thing' },
    });
  });

  it('a write waiting on it times out with ConsistencyTimeoutError within the consistency timeout', async () => {
    const t0 = Date.now();
    await expect(runner.waitFor(['good-things', 'fragile-things'], last)).rejects.toBeInstanceOf(
      ConsistencyTimeoutError,
    );
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(1200);
    // and so does one waiting through the checkpoint table (loops in another process)
    const elsewhere = new ProjectionRunner(store, ds, [], [], { runLoops: false, consistencyTimeoutMs: 300 });
    const t1 = Date.now();
    await expect(elsewhere.waitFor(['fragile-things'], last)).rejects.toBeInstanceOf(ConsistencyTimeoutError);
    expect(Date.now() - t1).toBeLessThan(900);
  });

  it('new events keep flowing to the other projection while it is stuck', async () => {
    await append(100);
    await runner.waitFor(['good-things'], last);
    expect(await count(`good_things_${tag}`)).toBe(21);
  });

  it('once the fault is gone it catches up and is no longer stuck, here and in the table', async () => {
    fault.on = false;
    reactorFault.on = false;
    await runner.waitFor(['fragile-things'], last).catch(() => runner.waitFor(['fragile-things'], last));
    expect(await count(`fragile_things_${tag}`)).toBe(21);
    const status = await runner.status();
    expect(status.find((s) => s.name === 'fragile-things')).toMatchObject({ stuck: null, lag: 0 });
    await until(async () => (await runner.status()).find((s) => s.name === `picky-reactor-${tag}`)!.stuck === null);
    expect(reacted).toContain(poison.id);
    await until(async () => (await readStuck(ds)).size === 0);
  });

  it('a stuck row an earlier process left is cleared by the next process’s loop once it applies an event', async () => {
    await runner.stop();
    const left = {
      eventId: poison.id,
      type: 'ThingHappened',
      stream: poison.streamId,
      position: positionToString(poison.position),
      error: 'left by a crash',
      attempts: 3,
      since: new Date(),
    };
    await recordStuck(ds, 'good-things', left);
    await recordStuck(ds, `picky-reactor-${tag}`, left);
    expect([...(await readStuck(ds)).keys()].sort()).toEqual(['good-things', `picky-reactor-${tag}`].sort());
    const projections = [
      thingsProjection('good-things', `good_things_${tag}`, { on: false }),
      thingsProjection('fragile-things', `fragile_things_${tag}`, fault),
    ];
    const reactor: Reactor = {
      name: `picky-reactor-${tag}`,
      handles: ['ThingHappened'],
      handle: async () => undefined,
    };
    runner = new ProjectionRunner(store, ds, projections, [reactor], {
      pollMs: 10,
      consistencyTimeoutMs: 600,
      retryBaseMs: 20,
      retryMaxMs: 200,
    });
    await runner.setup();
    runner.start();
    await append(100);
    await runner.waitFor(['good-things'], last);
    await until(async () => (await readStuck(ds)).size === 0);
  });
});

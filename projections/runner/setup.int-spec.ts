import { randomBytes } from 'crypto';
import { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { START } from '@larder/kernel';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { createServerTestDatabase, TestDatabase } from '../../libs/database/src/testing/test-databases';
import { readCheckpoint } from './checkpoints';
import { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';

/** The runner's setup (its projections' statements sent together, the checkpoints locked in one statement), on the machine's PostgreSQL. */
describe('ProjectionRunner.setup', () => {
  let db: TestDatabase;
  let pool: Pool;
  let ds: DataSource;
  let store: PostgresEventStore;
  const tag = randomBytes(4).toString('hex');

  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 4 });
    ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
    store = new PostgresEventStore(pool);
    await store.setup();
  });
  afterAll(async () => {
    await ds.destroy();
    await store.close();
    await pool.end();
    await db.drop();
  });

  const projection = (
    name: string,
    version: number,
    setup: (m: EntityManager) => Promise<void>,
    tables: string[] = [],
  ): Projection => ({
    name,
    version,
    handles: [],
    tables,
    setup,
    apply: async () => undefined,
  });
  const tableExists = async (table: string) =>
    (await ds.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [table]))[0].e as boolean;
  const versionOf = async (name: string) =>
    Number((await ds.query(`SELECT version FROM larder_checkpoints WHERE name = $1`, [name]))[0]?.version ?? NaN);

  it('creates every table, index and checkpoint; a setup reading the catalog sees its own earlier statements', async () => {
    let seen: unknown = null;
    const a = projection(`a-${tag}`, 1, async (m) => {
      await m.query(`CREATE TABLE IF NOT EXISTS a_${tag} (id int PRIMARY KEY, v text) -- its own trailing comment`);
      await m.query(`CREATE INDEX IF NOT EXISTS a_${tag}_v ON a_${tag} (v)`);
      seen = await m.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = $1`, [`a_${tag}`]);
      await m.query(`ALTER TABLE a_${tag} ADD COLUMN IF NOT EXISTS w int`);
    });
    const b = projection(`b-${tag}`, 3, async (m) => {
      await m.query(`CREATE TABLE IF NOT EXISTS b_${tag} (id int PRIMARY KEY)`);
    });
    const runner = new ProjectionRunner(store, ds, [a, b], [{ name: `r-${tag}`, handle: async () => undefined }]);
    await runner.setup();
    expect(seen).toEqual([{ n: 2 }]);
    expect(await tableExists(`a_${tag}`)).toBe(true);
    expect(await tableExists(`b_${tag}`)).toBe(true);
    expect(
      (
        await ds.query(
          `SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
          [`a_${tag}`],
        )
      ).map((r: { column_name: string }) => r.column_name),
    ).toEqual(['id', 'v', 'w']);
    expect([await versionOf(`a-${tag}`), await versionOf(`b-${tag}`), await versionOf(`r-${tag}`)]).toEqual([1, 3, 1]);
    // a second start changes nothing
    await new ProjectionRunner(store, ds, [a, b], [{ name: `r-${tag}`, handle: async () => undefined }]).setup();
    expect([await versionOf(`a-${tag}`), await versionOf(`b-${tag}`), await versionOf(`r-${tag}`)]).toEqual([1, 3, 1]);
  });

  it('a projection whose version changed is emptied and starts again; the others keep their rows and checkpoints', async () => {
    const a = projection(
      `a-${tag}`,
      1,
      async (m) => void (await m.query(`CREATE TABLE IF NOT EXISTS a_${tag} (id int PRIMARY KEY, v text)`)),
      [`a_${tag}`],
    );
    const b = (version: number) =>
      projection(
        `b-${tag}`,
        version,
        async (m) => void (await m.query(`CREATE TABLE IF NOT EXISTS b_${tag} (id int PRIMARY KEY)`)),
        [`b_${tag}`],
      );
    await ds.query(`INSERT INTO a_${tag} (id) VALUES (1), (2)`);
    await ds.query(`INSERT INTO b_${tag} (id) VALUES (1), (2)`);
    await ds.query(`UPDATE larder_checkpoints SET commit_pos = 7, prepare_pos = 7 WHERE name IN ($1, $2)`, [
      `a-${tag}`,
      `b-${tag}`,
    ]);
    await new ProjectionRunner(store, ds, [a, b(4)]).setup();
    expect(Number((await ds.query(`SELECT count(*)::int AS n FROM a_${tag}`))[0].n)).toBe(2);
    expect(Number((await ds.query(`SELECT count(*)::int AS n FROM b_${tag}`))[0].n)).toBe(0);
    expect(await versionOf(`b-${tag}`)).toBe(4);
    expect(await readCheckpoint(ds, `b-${tag}`)).toEqual(START);
    expect((await readCheckpoint(ds, `a-${tag}`)).commit).toBe(7n);
  });

  it('a failing statement fails the setup with its error, and nothing of that setup is kept', async () => {
    const good = projection(
      `c-${tag}`,
      1,
      async (m) => void (await m.query(`CREATE TABLE IF NOT EXISTS c_${tag} (id int PRIMARY KEY)`)),
    );
    const bad = projection(
      `d-${tag}`,
      1,
      async (m) => void (await m.query(`CREATE INDEX IF NOT EXISTS d_${tag}_x ON no_such_table_${tag} (x)`)),
    );
    await expect(new ProjectionRunner(store, ds, [good, bad]).setup()).rejects.toThrow(
      `relation "no_such_table_${tag}" does not exist`,
    );
    expect(await tableExists(`c_${tag}`)).toBe(false);
    expect(await versionOf(`c-${tag}`)).toBeNaN();
  });
});

import { randomBytes } from 'crypto';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../embedded-postgres';

/** The machine's PostgreSQL server used by integration tests (trust auth on loopback). */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database on the machine's PostgreSQL, dropped afterwards. Each test file gets its own. */
export async function createServerTestDatabase(prefix = 'larder_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: TEST_SERVER_URL });
      await c.connect();
      try {
        // A pool's end() resolves once its clients have sent Terminate, not once their sessions have
        // gone; forcing the drop at that moment cuts those sessions, and the cut reaches the test's pool
        // as an unhandled 'error'. So wait (up to 5 s) for the database's sessions to leave first; a
        // test that still holds one gets it cut, as before.
        for (let waited = 0; waited < 5000; waited += 20) {
          const { rows } = await c.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`,
            [name],
          );
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh in-memory embedded Postgres (PGlite) served on a loopback port. */
export async function createEmbeddedTestDatabase(): Promise<TestDatabase> {
  const pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
  return { url: pg.url, drop: () => pg.stop() };
}

import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { startEmbeddedPostgresThread } from './embedded-postgres.thread';

/**
 * The embedded database in its own thread (as a server starts it): reachable over its port with the
 * extensions the app needs, its data kept across a stop and a start, a failed start reported as an
 * error (not a hang), and a stop that ends the thread.
 */
describe('startEmbeddedPostgresThread', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'larder-pg-thread-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const query = async (url: string, sql: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  };

  it('serves the database over its port, keeps the data across a restart, and stops', async () => {
    const first = await startEmbeddedPostgresThread({ dataDir: join(dir, 'pg') });
    expect(first.url).toBe(`postgres://postgres@127.0.0.1:${first.port}/postgres`);
    await query(first.url, `CREATE TABLE t (id int, v vector(3)); INSERT INTO t VALUES (1, '[1,2,3]')`);
    expect(await query(first.url, `SELECT similarity('larder', 'larders') > 0.5 AS close`)).toEqual([{ close: true }]);
    await first.stop();
    await expect(query(first.url, 'SELECT 1')).rejects.toThrow();

    const second = await startEmbeddedPostgresThread({ dataDir: join(dir, 'pg') });
    try {
      expect(await query(second.url, `SELECT id, v::text AS v FROM t`)).toEqual([{ id: 1, v: '[1,2,3]' }]);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('rejects with the reason when the database cannot start', async () => {
    const file = join(dir, 'not-a-directory');
    writeFileSync(file, 'x');
    await expect(startEmbeddedPostgresThread({ dataDir: join(file, 'pg') })).rejects.toThrow(
      /the embedded database did not start/,
    );
  }, 120_000);
});

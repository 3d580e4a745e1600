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
    // the shared buffers' default (DEFAULT_SHARED_BUFFERS_MB), not PGlite's 128MB
    expect(await query(first.url, 'SHOW shared_buffers')).toEqual([{ shared_buffers: '32MB' }]);
    await first.stop();
    await expect(query(first.url, 'SELECT 1')).rejects.toThrow();

    const second = await startEmbeddedPostgresThread({ dataDir: join(dir, 'pg') });
    try {
      expect(await query(second.url, `SELECT id, v::text AS v FROM t`)).toEqual([{ id: 1, v: '[1,2,3]' }]);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('runs with the shared buffers asked for (the data directory says 128MB) and reports its WebAssembly memory', async () => {
    const pg = await startEmbeddedPostgresThread({ dataDir: join(dir, 'pg'), sharedBuffersMb: 16 });
    try {
      expect(await query(pg.url, 'SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      const memory = await pg.memory();
      expect(memory.sharedBuffersBytes).toBe(16 * 2 ** 20);
      expect(memory.wasmBytes).toBeGreaterThanOrEqual(128 * 2 ** 20);
    } finally {
      await pg.stop();
    }
    // asked once the thread has stopped: zeros, not a hang
    expect(await pg.memory()).toEqual({ wasmBytes: 0, sharedBuffersBytes: 0 });
  }, 120_000);

  it('rejects with the reason when the database cannot start', async () => {
    const file = join(dir, 'not-a-directory');
    writeFileSync(file, 'x');
    await expect(startEmbeddedPostgresThread({ dataDir: join(file, 'pg') })).rejects.toThrow(
      /the embedded database did not start/,
    );
  }, 120_000);
});

import { randomBytes, randomUUID } from 'crypto';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { request, ClientRequest, IncomingMessage } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client, Pool } from 'pg';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { createServerTestDatabase, TestDatabase } from '../libs/database/src/testing/test-databases';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';

jest.setTimeout(120_000);

/** The exit of the server process, or null when it is still running after `ms`. */
function exitWithin(
  server: ServerProcess,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; after: number } | null> {
  const t0 = Date.now();
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode, after: 0 });
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(null), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, after: Date.now() - t0 });
    });
  });
}

/** A file upload whose body arrives in two parts: the request stays in flight until `finish()`. */
function slowUpload(
  baseURL: string,
  apiKey: string,
): { req: ClientRequest; response: Promise<IncomingMessage & { body: string }>; finish(): void } {
  const boundary = `b${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\nThe first half of a slow upload, `;
  const tail = `and the second half.\r\n--${boundary}--\r\n`;
  const req = request(`${baseURL}/v1/files`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': Buffer.byteLength(head) + Buffer.byteLength(tail),
    },
  });
  const response = new Promise<IncomingMessage & { body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(Object.assign(res, { body })));
    });
    req.on('error', reject);
  });
  req.write(head);
  return { req, response, finish: () => req.end(tail) };
}

describe('SIGTERM ends a started server process', () => {
  const rootKey = `lrd_stop_${randomBytes(24).toString('base64url')}`;
  const started: Array<{ server: ServerProcess; dataDir: string; db: TestDatabase | null }> = [];

  beforeAll(() => {
    if (!existsSync(join(__dirname, '..', 'dist/apps/api/src/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
  });

  afterAll(async () => {
    for (const s of started) {
      s.server.kill9();
      await exitWithin(s.server, 5000);
      rmSync(s.dataDir, { recursive: true, force: true });
      await s.db?.drop();
    }
  });

  const start = async (env: Record<string, string>, options: { embedded?: boolean } = {}) => {
    const db = options.embedded ? null : await createServerTestDatabase('larder_stop');
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-stop-'));
    const server = await startServerProcess(
      {
        LARDER_DATA_DIR: dataDir,
        LARDER_ROOT_KEY: rootKey,
        LARDER_CONSISTENCY_TIMEOUT_MS: '30000',
        ...(db ? { DATABASE_URL: db.url } : {}),
        ...env,
      },
      await freePort(),
    );
    started.push({ server, dataDir, db });
    return { server, db };
  };

  it('drains on the embedded default: new connections are refused, the request in flight finishes, then the process exits 0', async () => {
    const { server } = await start({}, { embedded: true });
    const upload = slowUpload(server.baseURL, rootKey);
    await new Promise((r) => setTimeout(r, 500)); // the server is reading the body
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    expect(server.child.exitCode).toBeNull(); // still draining: the upload is in flight
    await expect(fetch(`${server.baseURL}/health/live`)).rejects.toThrow(); // no longer accepting
    upload.finish();
    const res = await upload.response;
    expect(res.statusCode).toBeLessThan(300);
    expect(JSON.parse(res.body)).toMatchObject({ filename: 'slow.txt' });
    const exit = await exitWithin(server, 20_000);
    expect(exit).toMatchObject({ code: 0 });
  });

  it('a request that never finishes: the drain is bounded by LARDER_SHUTDOWN_TIMEOUT_MS, then the process exits 1', async () => {
    const { server } = await start({ LARDER_SHUTDOWN_TIMEOUT_MS: '1500' });
    const upload = slowUpload(server.baseURL, rootKey);
    upload.response.catch(() => undefined); // cut when the process exits
    await new Promise((r) => setTimeout(r, 500));
    server.child.kill('SIGTERM');
    const exit = await exitWithin(server, 15_000);
    expect(exit).not.toBeNull();
    expect(exit!.code).toBe(1);
    expect(exit!.after).toBeGreaterThanOrEqual(1400);
    expect(server.output()).toMatch(/did not finish within 1500 ms/);
  });

  it('a loop that is busy (the relay blocked writing its checkpoint): the process still exits, forced after the bound', async () => {
    const { server, db } = await start({ LARDER_SHUTDOWN_TIMEOUT_MS: '1500' });
    const blocker = new Client({ connectionString: db!.url });
    await blocker.connect();
    const pool = new Pool({ connectionString: db!.url, max: 2 });
    try {
      // checkpoint writes wait (plain reads do not, and this lock takes no transaction id, so the log stays readable)
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE larder_checkpoints IN EXCLUSIVE MODE');
      // an event every loop reads; the relay publishes it and then waits to write its checkpoint
      await new PostgresEventStore(pool).appendToStream(`shutdown_spec-${randomUUID()}`, [
        { type: 'ShutdownSpecEventAppended', data: {}, metadata: { orgId: randomUUID() } },
      ]);
      const dbName = new URL(db!.url).pathname.slice(1);
      const waiting = async () =>
        Number(
          (
            await pool.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
              [dbName],
            )
          ).rows[0].n,
        );
      const end = Date.now() + 15_000;
      while ((await waiting()) < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(await waiting()).toBeGreaterThanOrEqual(1);
      server.child.kill('SIGTERM');
      const exit = await exitWithin(server, 15_000);
      expect(exit).not.toBeNull();
      expect(exit!.code).toBe(1);
      expect(server.output()).toMatch(/did not finish within 1500 ms/);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
      await pool.end();
    }
  });

  it('a second signal exits at once, without waiting for the drain', async () => {
    const { server } = await start({ LARDER_SHUTDOWN_TIMEOUT_MS: '60000' });
    const upload = slowUpload(server.baseURL, rootKey);
    upload.response.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    expect(server.child.exitCode).toBeNull();
    server.child.kill('SIGINT');
    const exit = await exitWithin(server, 3000);
    expect(exit).not.toBeNull();
    expect(exit!.code).toBe(1);
    expect(server.output()).toMatch(/SIGINT again: exiting without finishing the drain/);
  });
});

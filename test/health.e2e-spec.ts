import { Client } from 'pg';
import { CommandBus } from '@nestjs/cqrs';
import { CreateApiKeyCommand } from '@larder/api-keys';
import { API_KEYS_TABLE } from '@larder/projections/api-keys/api-keys.tables';
import { TEST_SERVER_URL } from '../libs/database/src/testing/test-databases';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(60_000);

interface Ready {
  status: 'ok' | 'unavailable';
  checks: {
    database: { status: string; error?: string };
    event_store: { status: string; head?: string };
    projections: {
      status: string;
      error?: string;
      items?: Array<{
        name: string;
        lag: number;
        running: boolean | null;
        stuck: null | { event_id: string; type: string; error: string; attempts: number };
      }>;
    };
    loops: { status: string; mode: string; running?: number; total?: number };
    quarantine: { status: string; stream?: string; count?: number; newest?: unknown[] };
  };
  error?: { message: string; code: number; type: string };
  message?: string;
}

/** `GET /health/live` and `GET /health/ready` on the whole API, on a fresh database of the machine's PostgreSQL. */
describe('health endpoints', () => {
  let t: TestLarder;
  let admin: Client;
  let dbName: string;

  const ready = async (): Promise<{ status: number; body: Ready }> => {
    const res = await fetch(`${t.baseURL}/health/ready`);
    return { status: res.status, body: (await res.json()) as Ready };
  };
  const until = async <T>(probe: () => Promise<T>, ok: (x: T) => boolean, ms = 20_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const x = await probe();
      if (ok(x)) return x;
      if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(x)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    t = await startTestLarder();
    dbName = new URL(t.larder.infra.databaseUrl).pathname.slice(1);
    admin = new Client({ connectionString: TEST_SERVER_URL });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await t.close();
  });

  it('live answers 200 {status: ok} without an API key', async () => {
    const res = await fetch(`${t.baseURL}/health/live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('ready answers 200 without an API key when the database answers and nothing is stuck', async () => {
    const { status, body } = await until(ready, (r) => r.status === 200);
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.checks.database.status).toBe('ok');
    expect(body.checks.event_store).toMatchObject({ status: 'ok', head: expect.stringMatching(/^\d+\/\d+$/) });
    expect(body.checks.loops).toMatchObject({ status: 'ok', mode: 'in_process' });
    expect(body.checks.quarantine).toMatchObject({ status: 'ok', stream: 'quarantine-records', count: 0, newest: [] });
    expect(body.checks.loops.running).toBe(body.checks.loops.total);
    const apiKeys = body.checks.projections.items!.find((p) => p.name === 'api-keys')!;
    expect(apiKeys).toMatchObject({ running: true, stuck: null, lag: 0 });
    expect(body.error).toBeUndefined();
  });

  it('ready answers 503 naming the event and the error while a projection is stuck, and 200 again once it applies', async () => {
    // the api-keys read model refuses one key's row, as a broken projection would
    await admin.end();
    admin = new Client({ connectionString: t.larder.infra.databaseUrl });
    await admin.connect();
    await admin.query(
      `ALTER TABLE ${API_KEYS_TABLE} ADD CONSTRAINT health_spec_no_poison CHECK (name <> 'poison') NOT VALID`,
    );
    const { organizationId } = await t.newOrganization('health');
    const creating = t.larder.app
      .get(CommandBus)
      .execute(new CreateApiKeyCommand(organizationId, 'poison', null, null))
      .catch((err: Error) => err);

    const { body } = await until(
      ready,
      (r) => r.status === 503 && !!r.body.checks.projections.items?.find((p) => p.name === 'api-keys')?.stuck,
    );
    expect(body.status).toBe('unavailable');
    expect(body.error).toMatchObject({ code: 503, type: 'service_unavailable' });
    expect(body.message).toMatch(/api-keys is stuck/);
    expect(body.checks.database.status).toBe('ok');
    expect(body.checks.projections.status).toBe('fail');
    const stuck = body.checks.projections.items!.find((p) => p.name === 'api-keys')!.stuck!;
    expect(stuck.type).toBe('ApiKeyCreated');
    expect(stuck.error).toMatch(/health_spec_no_poison/);
    expect(stuck.attempts).toBeGreaterThanOrEqual(1);
    expect(body.checks.projections.items!.filter((p) => p.stuck).map((p) => p.name)).toEqual(['api-keys']);
    // the API still serves
    expect((await fetch(`${t.baseURL}/`)).status).toBe(200);
    expect((await fetch(`${t.baseURL}/health/live`)).status).toBe(200);

    await admin.query(`ALTER TABLE ${API_KEYS_TABLE} DROP CONSTRAINT health_spec_no_poison`);
    const after = await until(ready, (r) => r.status === 200, 40_000);
    expect(after.body.checks.projections.items!.every((p) => p.stuck === null)).toBe(true);
    expect(
      (await admin.query(`SELECT count(*)::int AS n FROM ${API_KEYS_TABLE} WHERE name = 'poison'`)).rows[0].n,
    ).toBe(1);
    await creating;
  });

  it('ready answers 503 when the database does not answer, and 200 once it does again', async () => {
    await admin.end();
    admin = new Client({ connectionString: TEST_SERVER_URL });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [dbName],
    );
    const t0 = Date.now();
    const { status, body } = await ready();
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(status).toBe(503);
    expect(body.status).toBe('unavailable');
    expect(body.checks.database.status).toBe('fail');
    expect(body.error).toMatchObject({ code: 503, type: 'service_unavailable' });
    expect(body.message).toMatch(/database/);
    expect((await fetch(`${t.baseURL}/health/live`)).status).toBe(200);

    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    const after = await until(ready, (r) => r.status === 200, 40_000);
    expect(after.body.checks.database.status).toBe('ok');
  });
});

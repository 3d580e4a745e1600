import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { AddressInfo } from 'net';
import { createServerTestDatabase, TestDatabase } from '../../../libs/database/src/testing/test-databases';
import { loadConfig } from './config';
import { createLarderApp } from './create-app';

/** Starts of the whole server on one data directory and database: what each start's bootstrap did, and which keys authenticate. */
describe('root key bootstrap across restarts', () => {
  let db: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    db = await createServerTestDatabase('larder_root_key');
    dataDir = mkdtempSync(join(tmpdir(), 'larder-root-key-'));
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * One start with `rootKey`: its bootstrap's result, the events stored once it listens (but a key's
   * use, which the probes below record), and whether each key in `probe` authenticates.
   */
  async function start(rootKey: string, probe: string[]) {
    const config = loadConfig({
      PORT: '0',
      LARDER_DATA_DIR: dataDir,
      LARDER_ROOT_KEY: rootKey,
      LARDER_LOG_LEVEL: 'warn',
      DATABASE_URL: db.url,
    });
    const larder = await createLarderApp(config);
    try {
      await larder.app.listen(0, '127.0.0.1');
      const base = `http://127.0.0.1:${(larder.app.getHttpServer().address() as AddressInfo).port}`;
      const events = Number(
        (
          await larder.infra.pool.query(
            `SELECT count(*) AS n FROM "${config.eventStoreSchema}".events WHERE type <> 'ApiKeyUsed'`,
          )
        ).rows[0].n,
      );
      const authenticates: boolean[] = [];
      for (const key of probe)
        authenticates.push(
          (await fetch(`${base}/v1/api-keys`, { headers: { authorization: `Bearer ${key}` } })).status === 200,
        );
      return { created: larder.rootKey.created, apiKeyId: larder.rootKey.apiKeyId, events, authenticates };
    } finally {
      await larder.close();
    }
  }

  it('creates on the first start, appends nothing on a restart, and creates a changed LARDER_ROOT_KEY', async () => {
    const first = `lrd_test_${randomBytes(24).toString('base64url')}`;
    const second = `lrd_test_${randomBytes(24).toString('base64url')}`;
    const a = await start(first, [first, second]);
    expect(a).toMatchObject({ created: true, authenticates: [true, false] });
    expect(a.events).toBeGreaterThan(0);

    const b = await start(first, [first, second]);
    expect(b).toEqual({ created: false, apiKeyId: a.apiKeyId, events: a.events, authenticates: [true, false] });

    const c = await start(second, [first, second]);
    expect(c.created).toBe(true);
    expect(c.apiKeyId).not.toBe(a.apiKeyId);
    expect(c.events).toBeGreaterThan(a.events);
    expect(c.authenticates).toEqual([true, true]);
  }, 120_000);
});

import { randomBytes } from 'crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { createServerTestDatabase, TestDatabase } from '../libs/database/src/testing/test-databases';
import { startS3TestServer } from '../libs/blob-storage/src/testing/s3-test-server';
import { freePort, startServerProcess, startWorkerProcess, ServerProcess } from './support/server-process';

jest.setTimeout(300_000);

const WORDS =
  'brine cellar crock dill ferment garlic harvest jar kettle ladle lemon mustard onion pantry pepper pickle plum quince relish salt shelf simmer sugar syrup thyme'.split(
    ' ',
  );
function document(i: number): string {
  let seed = i * 7919 + 17;
  const word = () => WORDS[(seed = (seed * 48271) % 2147483647) % WORDS.length];
  const paragraph = (n: number) => Array.from({ length: n }, word).join(' ') + '.';
  return `# Split note ${i}\n\n${paragraph(80)}\n\n## Shelf ${i}\n\n${paragraph(80)}\n`;
}

/**
 * Server mode, split as docker-compose runs it, on this machine: the API (LARDER_RUN_WORKER=false) and
 * the worker as separate processes with separate data directories, sharing only the machine's
 * PostgreSQL (events and read models), NATS and an S3-protocol server (blobs). Uploads go through the
 * API, ingestion happens in the worker (nothing progresses while it is dead), searches are answered by
 * the API from its own replica of the embedded chunk index, and a worker killed mid-ingestion loses
 * nothing once it is back.
 */
describe('split topology: API and worker as separate processes', () => {
  let db: TestDatabase;
  let s3: { endpoint: string; close: () => Promise<void> };
  const apiDir = mkdtempSync(join(tmpdir(), 'larder-split-api-'));
  const workerDir = mkdtempSync(join(tmpdir(), 'larder-split-worker-'));
  const rootKey = `mxb_split_${randomBytes(24).toString('base64url')}`;
  const tag = randomBytes(4).toString('hex');
  let common: Record<string, string>;
  let api: ServerProcess | null = null;
  let worker: Omit<ServerProcess, 'baseURL'> | null = null;

  beforeAll(async () => {
    if (!existsSync(join(__dirname, '..', 'dist/apps/worker/src/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
    db = await createServerTestDatabase('larder_split');
    s3 = await startS3TestServer();
    common = {
      DATABASE_URL: db.url,
      NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      LARDER_NATS_STREAM: `LARDER_SPLIT_${tag}`,
      LARDER_NATS_SUBJECT_PREFIX: `larder_split_${tag}`,
      LARDER_BLOB_STORAGE: 's3',
      LARDER_S3_ENDPOINT: s3.endpoint,
      LARDER_S3_BUCKET: `split-${tag}`,
      LARDER_S3_ACCESS_KEY_ID: 'S3RVER',
      LARDER_S3_SECRET_ACCESS_KEY: 'S3RVER',
      LARDER_ROOT_KEY: rootKey,
      LARDER_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      LARDER_SECRETS_KEY: randomBytes(32).toString('base64'),
      LARDER_INGESTION_LEASE_SECONDS: '4',
      LARDER_INGESTION_RETRY_BASE_MS: '200',
      LARDER_INGESTION_POLL_MS: '100',
    };
    worker = await startWorkerProcess({ ...common, LARDER_DATA_DIR: workerDir });
    api = await startServerProcess(
      { ...common, LARDER_DATA_DIR: apiDir, LARDER_RUN_WORKER: 'false' },
      await freePort(),
    );
  });

  afterAll(async () => {
    await api?.stop();
    await worker?.stop();
    await s3?.close();
    await db?.drop();
    rmSync(apiDir, { recursive: true, force: true });
    rmSync(workerDir, { recursive: true, force: true });
  });

  it('uploads through the API, ingests in the worker, survives the worker being killed, and searches through the API', async () => {
    const c = new Mixedbread({ apiKey: rootKey, baseURL: api!.baseURL, maxRetries: 0, timeout: 30_000 });
    const store = await c.stores.create({ name: `split-${tag}` });
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const sf = await c.stores.files.upload({
        storeIdentifier: store.id,
        file: await toFile(Buffer.from(document(i)), `note-${i}.md`, { type: 'text/markdown' }),
      });
      ids.push(sf.id);
    }
    const needle = await c.stores.files.upload({
      storeIdentifier: store.id,
      file: await toFile(
        Buffer.from('# Quince membrane\n\nThe aubergine marmalade recipe calls for saffron threads and star anise.\n'),
        'marmalade.md',
        { type: 'text/markdown' },
      ),
    });
    ids.push(needle.id);

    const completed = async () => (await c.stores.retrieve(store.id)).file_counts?.completed ?? 0;
    const waitFor = async (what: () => Promise<boolean>, ms: number) => {
      const deadline = Date.now() + ms;
      while (!(await what())) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out; worker output:\n${worker?.output().slice(-3000)}\napi output:\n${api?.output().slice(-2000)}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    // kill -9 the worker once a few files are done and the rest are queued or running
    await waitFor(async () => (await completed()) >= 2, 120_000);
    worker!.kill9();
    await new Promise((r) => setTimeout(r, 500));
    const whileDead = await completed();
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await completed()).toBe(whileDead); // the API ingests nothing itself
    expect(whileDead).toBeLessThan(ids.length);

    worker = await startWorkerProcess({ ...common, LARDER_DATA_DIR: workerDir });
    await waitFor(async () => (await completed()) === ids.length, 180_000);

    // exactly one StoreFileIngested per store file, whatever the crash interrupted
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ stream_id: string; n: string }>(
        `SELECT stream_id, count(*) AS n FROM larder_events.events WHERE type = 'StoreFileIngested' GROUP BY stream_id`,
      );
      expect(rows).toHaveLength(ids.length);
      expect(rows.every((r) => r.n === '1')).toBe(true);
    } finally {
      await pg.end();
    }

    // searched through the API: its own replica of the index follows the log (within its poll interval)
    let top: string | undefined;
    await waitFor(async () => {
      const res = await c.stores.search({
        store_identifiers: [store.id],
        query: 'aubergine marmalade saffron',
        top_k: 3,
      });
      top = res.data[0]?.file_id;
      return top === needle.id;
    }, 10_000);
    expect(top).toBe(needle.id);

    // content lives in the shared S3 bucket, not in either process's data directory
    const listed = await c.files.content(needle.id);
    expect(await listed.text()).toContain('aubergine marmalade');
    expect(existsSync(join(apiDir, 'blobs'))).toBe(false);
    expect(existsSync(join(workerDir, 'blobs'))).toBe(false);
    expect(readdirSync(apiDir)).toContain('chunk-index');
  });

  it('refuses a revoked, rerolled or deleted key on the very next request, also while the worker (and with it the read models) is down', async () => {
    const call = async (method: string, path: string, key: string) =>
      (await fetch(`${api!.baseURL}${path}`, { method, headers: { authorization: `Bearer ${key}` } })).status;
    const keys: Array<{ id: string; value: string }> = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${api!.baseURL}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `split-${i}` }),
      });
      expect(res.status).toBe(201);
      keys.push((await res.json()) as { id: string; value: string });
    }
    for (const k of keys) {
      const deadline = Date.now() + 10_000;
      while ((await call('GET', '/v1/stores', k.value)) !== 200 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await call('GET', '/v1/stores', k.value)).toBe(200);
    }
    const [revoked, rerolled, deleted] = keys;

    // with the worker up
    expect(await call('POST', `/v1/api-keys/${revoked.id}/revoke`, rootKey)).toBe(200);
    expect(await call('GET', '/v1/stores', revoked.value)).toBe(401);

    // with the worker down: the writes are stored, the read models stand still
    worker!.kill9();
    await new Promise((r) => setTimeout(r, 300));
    expect(await call('POST', `/v1/api-keys/${rerolled.id}/reroll`, rootKey)).toBe(200);
    expect(await call('GET', '/v1/stores', rerolled.value)).toBe(401);
    expect(await call('DELETE', `/v1/api-keys/${deleted.id}`, rootKey)).toBe(200);
    expect(await call('GET', '/v1/stores', deleted.value)).toBe(401);
    worker = await startWorkerProcess({ ...common, LARDER_DATA_DIR: workerDir });
    for (const k of keys) expect(await call('GET', '/v1/stores', k.value)).toBe(401);
  });
});

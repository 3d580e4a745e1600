import { createHash, randomBytes } from 'crypto';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Mixedbread from '@mixedbread/sdk';
import { BusMessage } from '@larder/message-bus';
import { NatsMessageBus } from '@larder/message-bus/nats/nats.message-bus';
import { createServerTestDatabase, TestDatabase } from '../libs/database/src/testing/test-databases';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
jest.setTimeout(180_000);

/**
 * `kill -9` in the middle of 200 concurrent key creations, with the relay publishing to the machine's
 * NATS JetStream, then a restart: once on the embedded default (PGlite on disk), once on server Postgres.
 */
describe.each([['embedded Postgres (PGlite on disk)'], ['the machine’s PostgreSQL server']])(
  'crash recovery on %s: kill -9 during 200 concurrent API key creations',
  (variant) => {
    const tag = randomBytes(4).toString('hex');
    let db: TestDatabase | null = null;
    const dataDir = mkdtempSync(join(tmpdir(), 'larder-crash-'));
    const rootKey = `lrd_crash_${randomBytes(24).toString('base64url')}`;
    const env = {
      LARDER_DATA_DIR: dataDir,
      LARDER_ROOT_KEY: rootKey,
      NATS_URL,
      LARDER_NATS_STREAM: `LARDER_CRASH_${tag.toUpperCase()}`,
      LARDER_NATS_SUBJECT_PREFIX: `larder_crash_${tag}`,
    };
    let server: ServerProcess | null = null;
    let bus: NatsMessageBus;
    const received: BusMessage<{ data: { apiKeyId: string } }>[] = [];

    beforeAll(async () => {
      if (variant.includes('server')) {
        db = await createServerTestDatabase('larder_crash');
        (env as Record<string, string>).DATABASE_URL = db.url;
      }
      if (!existsSync(join(__dirname, '..', 'dist/apps/api/src/main.js')))
        throw new Error('run `npm run build` first (npm test does)');
    });

    afterAll(async () => {
      await server?.stop();
      if (bus) {
        await bus.destroyStream();
        await bus.close();
      }
      rmSync(dataDir, { recursive: true, force: true });
      await db?.drop();
    });

    it('keeps every acknowledged create, duplicates none, and publishes each ApiKeyCreated exactly once', async () => {
      const port = await freePort();
      server = await startServerProcess(env, port);
      const client = (key: string) =>
        new Mixedbread({ apiKey: key, baseURL: server!.baseURL, maxRetries: 0, timeout: 30_000 });

      const acknowledged: Array<{ id: string; value: string; name: string }> = [];
      let failed = 0;
      let killed = false;
      const admin = client(rootKey);
      // Killed from the 20th acknowledgement's own callback, with the rest in flight: a poll between
      // acknowledgements could find a fast server done with all 200.
      const creations = Array.from({ length: 200 }, (_, i) =>
        admin.apiKeys.create({ name: `crash-${i}` }).then(
          (k) => {
            acknowledged.push({ id: k.id, value: k.value, name: k.name });
            if (acknowledged.length >= 20 && !killed) {
              killed = true;
              server!.kill9();
            }
          },
          () => void failed++,
        ),
      );
      await Promise.all(creations);
      if (!killed) server.kill9();
      // eslint-disable-next-line no-console
      console.log(`crash: ${acknowledged.length} creates acknowledged, ${failed} cut off by kill -9`);
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);
      expect(acknowledged.length + failed).toBe(200);
      expect(failed).toBeGreaterThan(0); // the kill really interrupted work

      server = await startServerProcess(env, port);
      const after = client(rootKey);
      // creates cut off by the kill may still have been stored (a group of appends commits whole): the
      // listing below is read once the read models have caught up with everything stored
      await caughtUp(server.baseURL);

      // every create that returned 201 authenticates
      for (const k of acknowledged) {
        const got = await client(k.value).apiKeys.retrieve(k.id);
        expect(got.id).toBe(k.id);
      }

      // none is duplicated: each requested name at most once
      const all: Array<{ id: string; name: string }> = [];
      for await (const k of after.apiKeys.list({ limit: 1000 })) all.push({ id: k.id, name: k.name });
      const names = all.map((k) => k.name).filter((n) => n.startsWith('crash-'));
      expect(new Set(names).size).toBe(names.length);
      expect(new Set(all.map((k) => k.id)).size).toBe(all.length);
      for (const k of acknowledged) expect(all.map((x) => x.id)).toContain(k.id);

      // NATS carries each ApiKeyCreated exactly once (the relay resumed from its checkpoint after the kill)
      bus = await NatsMessageBus.connect({
        url: NATS_URL,
        stream: env.LARDER_NATS_STREAM,
        subjects: [`${env.LARDER_NATS_SUBJECT_PREFIX}.>`],
      });
      await bus.subscribe<{ data: { apiKeyId: string } }>(
        `${env.LARDER_NATS_SUBJECT_PREFIX}.*.api_key.ApiKeyCreated`,
        (m) => void received.push(m),
        {
          deliver: 'all',
        },
      );
      const until = Date.now() + 30_000;
      while (received.length < all.length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500)); // anything extra would arrive now
      const published = received.map((m) => m.data.data.apiKeyId);
      expect(published.length).toBe(all.length);
      expect(new Set(published).size).toBe(published.length);
      expect(new Set(published)).toEqual(new Set(all.map((k) => k.id)));
    });

    it('a kill -9 between the parts and complete leaves the multipart upload resumable after restart', async () => {
      const port = await freePort();
      await server?.stop();
      server = await startServerProcess(env, port);
      const client = new Mixedbread({ apiKey: rootKey, baseURL: server.baseURL, maxRetries: 0 });
      const parts = [randomBytes(6 * 1024 * 1024), randomBytes(6 * 1024 * 1024), randomBytes(1000)];
      const whole = Buffer.concat(parts);
      const up = await client.files.uploads.create({
        filename: 'resumable.bin',
        file_size: whole.length,
        mime_type: 'application/octet-stream',
        part_count: 3,
      });
      const etags: string[] = [];
      for (const i of [0, 1]) {
        const r = await fetch(up.part_urls[i].url, { method: 'PUT', body: parts[i] });
        expect(r.status).toBe(200);
        etags[i] = r.headers.get('etag')!;
      }
      server.kill9();
      await new Promise((r) => server!.child.once('exit', r));

      server = await startServerProcess(env, port);
      const after = new Mixedbread({ apiKey: rootKey, baseURL: server.baseURL, maxRetries: 0 });
      const detail = await after.files.uploads.retrieve(up.id);
      expect(detail.completed_parts).toEqual([
        { part_number: 1, etag: etags[0] },
        { part_number: 2, etag: etags[1] },
      ]);
      expect(detail.part_urls.map((p) => p.part_number)).toEqual([3]);
      const r3 = await fetch(detail.part_urls[0].url, { method: 'PUT', body: parts[2] });
      expect(r3.status).toBe(200);
      const file = await after.files.uploads.complete(up.id, {
        parts: [...detail.completed_parts, { part_number: 3, etag: r3.headers.get('etag')! }],
      });
      expect(file.bytes).toBe(whole.length);
      const got = Buffer.from(await (await after.files.content(file.id)).arrayBuffer());
      expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(whole).digest('hex'));
    });
  },
);

/** Waits (30 s at most) until /health/ready shows every projection and reactor at the log's head. */
async function caughtUp(baseURL: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const r = await fetch(`${baseURL}/health/ready`);
    const body = (await r.json()) as { checks?: { projections?: { items?: Array<{ lag: number }> } } };
    const items = body.checks?.projections?.items ?? [];
    if (items.length && items.every((i) => i.lag === 0)) return;
    if (Date.now() > until) throw new Error(`read models still behind: ${JSON.stringify(items)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

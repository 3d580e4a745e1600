import { randomBytes, randomUUID } from 'crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Position, START, comparePositions } from '@larder/kernel';
import { handleCommand } from '@larder/event-store';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { EventRelayReactor, BusMessage } from '@larder/message-bus';
import { NatsMessageBus } from '@larder/message-bus/nats/nats.message-bus';
import { apiKeyDecider } from '../../libs/api-keys/src/api-key.aggregate';
import { apiKeyStream } from '../../libs/api-keys/src/streams';
import { organizationDecider } from '../../libs/organizations/src/organization.aggregate';
import { organizationStream } from '../../libs/organizations/src/streams';
import { createServerTestDatabase, TestDatabase } from '../../libs/database/src/testing/test-databases';
import { allProjections, READ_MODEL_ENTITIES } from '../index';
import { ProjectionRunner } from './projection-runner';
import { CHECKPOINT_TABLE } from './checkpoints';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

describe('projection runner on the machine’s PostgreSQL, relay on its NATS JetStream', () => {
  let db: TestDatabase;
  let pool: Pool;
  let ds: DataSource;
  let store: PostgresEventStore;
  let bus: NatsMessageBus;
  let runner: ProjectionRunner;
  const tag = randomBytes(4).toString('hex');
  const prefix = `larder_rt_${tag}`;
  const received: BusMessage[] = [];
  let appended = 0;
  let last: Position = START;

  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 8 });
    pool.on('error', () => undefined); // idle clients are cut when the database is dropped
    ds = new DataSource({ type: 'postgres', url: db.url, entities: READ_MODEL_ENTITIES });
    await ds.initialize();
    store = new PostgresEventStore(pool, { pollMs: 20 });
    await store.setup();
    bus = await NatsMessageBus.connect({
      url: NATS_URL,
      stream: `LARDER_RT_${tag.toUpperCase()}`,
      subjects: [`${prefix}.>`],
    });
    await bus.subscribe(`${prefix}.>`, (m) => void received.push(m), { deliver: 'all' });
    runner = new ProjectionRunner(store, ds, allProjections(), [new EventRelayReactor(bus, prefix)], { pollMs: 10 });
    await runner.setup();
    runner.start();

    // A scripted history: 3 organizations, 10 keys each, some updated, revoked, rerolled, used, deleted.
    const now = () => new Date();
    for (let o = 0; o < 3; o++) {
      const org = randomUUID();
      const r = await handleCommand(
        store,
        organizationStream(org),
        organizationDecider,
        { type: 'CreateOrganization', organizationId: org, name: `org${o}`, root: false, now: now() },
        { orgId: org },
      );
      appended += r.events.length;
      for (let k = 0; k < 10; k++) {
        const id = randomUUID();
        const base = { apiKeyId: id, organizationId: org };
        const steps = [
          {
            type: 'CreateApiKey' as const,
            ...base,
            name: `key${k}`,
            secretHash: randomUUID(),
            redactedValue: 'lrd_****',
            scope: k % 2 ? [{ method: 'read' as const, resource_type: 'store' }] : null,
            expiresAt: null,
            admin: false,
            now: now(),
          },
          ...(k % 3 === 0
            ? [
                {
                  type: 'UpdateApiKey' as const,
                  ...base,
                  name: `renamed${k}`,
                  expiresAt: new Date(Date.now() + 3600_000),
                  now: now(),
                },
              ]
            : []),
          ...(k % 4 === 0
            ? [
                {
                  type: 'RerollApiKey' as const,
                  ...base,
                  secretHash: randomUUID(),
                  redactedValue: 'lrd_****2',
                  now: now(),
                },
              ]
            : []),
          ...(k % 5 === 0 ? [{ type: 'RevokeApiKey' as const, ...base, now: now() }] : []),
          ...(k % 2 === 0 ? [{ type: 'RecordApiKeyUse' as const, ...base, minIntervalMs: 0, now: now() }] : []),
          ...(k === 7 ? [{ type: 'DeleteApiKey' as const, ...base, now: now() }] : []),
        ];
        for (const s of steps) {
          const res = await handleCommand(store, apiKeyStream(id), apiKeyDecider, s, { orgId: org });
          appended += res.events.length;
          if (res.position) last = res.position;
        }
      }
    }
    await runner.waitFor(['api-keys', 'organizations'], last);
  }, 60_000);

  afterAll(async () => {
    await runner.stop();
    await bus.destroyStream();
    await bus.close();
    await ds.destroy();
    await store.close();
    await pool.end();
    await db.drop();
  });

  const snapshot = async () => ({
    keys: await ds.query(`SELECT * FROM api_keys_v1 ORDER BY id`),
    orgs: await ds.query(`SELECT * FROM organizations_v1 ORDER BY id`),
  });

  const until = async (cond: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('builds the read models with the checkpoint at the last event', async () => {
    const s = await snapshot();
    expect(s.orgs).toHaveLength(3);
    expect(s.keys).toHaveLength(27); // 30 created, 3 deleted
    expect(s.keys.filter((k: { revoked_at: Date | null }) => k.revoked_at)).toHaveLength(6);
    // loops that saw only events they do not handle write their checkpoint once idle for 2 s
    await new Promise((r) => setTimeout(r, 2500));
    const cps = await ds.query(
      `SELECT name, commit_pos, prepare_pos FROM ${CHECKPOINT_TABLE} WHERE kind = 'projection'`,
    );
    // one row per projection, or the loop below would pass with none
    expect(cps.map((cp: { name: string }) => cp.name).sort()).toEqual(
      allProjections()
        .map((p) => p.name)
        .sort(),
    );
    for (const cp of cps)
      expect(
        comparePositions({ commit: BigInt(cp.commit_pos), prepare: BigInt(cp.prepare_pos) }, last),
      ).toBeGreaterThanOrEqual(0);
  });

  it('publishes every event once to a subject naming organization, category and type', async () => {
    await until(() => received.length >= appended);
    expect(received).toHaveLength(appended);
    expect(new Set(received.map((m) => m.id)).size).toBe(appended);
    const created = received.filter((m) => m.subject.endsWith('.api_key.ApiKeyCreated'));
    expect(created).toHaveLength(30);
    const one = created[0].data as { organization_id: string; type: string };
    expect(created[0].subject).toBe(`${prefix}.${one.organization_id}.api_key.ApiKeyCreated`);
  });

  it('replay rebuilds identical rows and republishes nothing', async () => {
    const before = await snapshot();
    await ds.query(`UPDATE api_keys_v1 SET name = 'corrupted'`); // damage the read model
    const r = await runner.replay('api-keys');
    expect(r.events).toBeGreaterThan(30);
    expect(await snapshot()).toEqual(before);
    await runner.replay('organizations');
    expect(await snapshot()).toEqual(before);
    await new Promise((res) => setTimeout(res, 300));
    expect(received).toHaveLength(appended);
  });

  it('the relay re-run from an old checkpoint (a crash before it saved) is de-duplicated by JetStream', async () => {
    await runner.stop();
    await ds.query(`UPDATE ${CHECKPOINT_TABLE} SET commit_pos = 0, prepare_pos = 0 WHERE name = 'nats-relay'`);
    runner.start();
    await until(() => false, 800).catch(() => undefined); // let it republish everything
    // a reactor writes its checkpoint at most every two seconds while it works, and once idle
    const saved = async () =>
      BigInt((await ds.query(`SELECT commit_pos FROM ${CHECKPOINT_TABLE} WHERE name = 'nats-relay'`))[0].commit_pos);
    const end = Date.now() + 10_000;
    while ((await saved()) === 0n && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(await saved()).toBeGreaterThan(0n);
    expect(received).toHaveLength(appended);
  });

  it('refuses to replay an unknown projection or a reactor', async () => {
    await expect(runner.replay('nats-relay')).rejects.toThrow(/unknown projection/);
  });

  it('stops promptly, also when it is stopped while its loops are reading', async () => {
    // reads that take 50 ms, so that the stop lands while every loop is reading
    const slow = new Proxy(store, {
      get(target, key) {
        if (key === 'readAll')
          return async (o: Parameters<PostgresEventStore['readAll']>[0]) => (
            await new Promise((r) => setTimeout(r, 50)),
            target.readAll(o)
          );
        const v = (target as unknown as Record<string | symbol, unknown>)[key];
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const other = new ProjectionRunner(slow, ds, allProjections(), [], { pollMs: 10_000 });
    for (let i = 0; i < 3; i++) {
      other.start();
      await new Promise((r) => setTimeout(r, 30));
      const stopped = await Promise.race([
        other.stop().then(() => true),
        new Promise((r) => setTimeout(() => r(false), 3000)),
      ]);
      expect(stopped).toBe(true);
    }
  });
});

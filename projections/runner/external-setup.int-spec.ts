import { randomUUID } from 'crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Position, RecordedEvent, START } from '@larder/kernel';
import { handleCommand } from '@larder/event-store';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { organizationDecider } from '@larder/organizations/organization.aggregate';
import { organizationStream } from '@larder/organizations/streams';
import { createServerTestDatabase, TestDatabase } from '@larder/database/testing/test-databases';
import { allProjections, READ_MODEL_ENTITIES } from '../index';
import { ExternalProjection } from './projection';
import { ProjectionRunner } from './projection-runner';

/** An external index whose setup finishes when the test says so, and which records what was asked of it before. */
class SlowIndex implements ExternalProjection {
  readonly name = 'slow-index';
  readonly version = 1;
  readonly handles = ['OrganizationCreated'];
  readonly calls: string[] = [];
  applied = 0;
  private checkpoint: Position = START;
  private open = false;
  private release!: (err?: Error) => void;
  private readonly opened = new Promise<void>(
    (resolve, reject) => (this.release = (err) => (err ? reject(err) : resolve())),
  );

  finishSetup(err?: Error): void {
    this.release(err);
  }

  async setup(): Promise<void> {
    this.calls.push('setup');
    await this.opened;
    this.open = true;
  }

  async readCheckpoint(): Promise<Position> {
    this.calls.push(this.open ? 'checkpoint' : 'checkpoint before setup');
    return this.checkpoint;
  }

  async applyBatch(events: RecordedEvent[], last: Position): Promise<void> {
    this.calls.push(this.open ? 'apply' : 'apply before setup');
    this.applied += events.length;
    this.checkpoint = last;
  }

  async reset(): Promise<void> {
    this.checkpoint = START;
  }
}

describe('a runner whose external index opens while the read models are set up (a server start)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let ds: DataSource;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined);
    ds = new DataSource({ type: 'postgres', url: db.url, entities: READ_MODEL_ENTITIES });
    await ds.initialize();
    store = new PostgresEventStore(pool, { pollMs: 20 });
    await store.setup();
  });

  afterAll(async () => {
    await store.close();
    await ds.destroy();
    await pool.end();
    await db.drop();
  });

  const createOrganization = async (): Promise<Position> => {
    const org = randomUUID();
    const r = await handleCommand(
      store,
      organizationStream(org),
      organizationDecider,
      { type: 'CreateOrganization', organizationId: org, name: 'o', root: false, now: new Date() },
      { orgId: org },
    );
    return r.position!;
  };

  it('returns before the index is open, and neither reads its checkpoint nor applies events to it until it is', async () => {
    const at = await createOrganization();
    const index = new SlowIndex();
    const runner = new ProjectionRunner(store, ds, allProjections(), [], { pollMs: 10, external: [index] });
    try {
      await runner.setup({ awaitExternal: false });
      runner.start();
      let ready = false;
      void runner.externalReady.then(() => (ready = true));
      // the read models' loops run meanwhile; the index's does not
      await runner.waitFor(['organizations'], at);
      await new Promise((r) => setTimeout(r, 200));
      expect(ready).toBe(false);
      expect(index.calls).toEqual(['setup']);
      // read-your-writes on the index waits for it to open too
      const waited = runner.waitFor(['slow-index'], at);
      index.finishSetup();
      await runner.externalReady;
      await waited;
      const until = Date.now() + 5000;
      while (index.applied < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(index.applied).toBeGreaterThanOrEqual(1);
      expect(index.calls.filter((c) => c.endsWith('before setup'))).toEqual([]);
    } finally {
      await runner.stop();
    }
  });

  it('reports a failed open through externalReady, and never runs the index loop', async () => {
    const index = new SlowIndex();
    const runner = new ProjectionRunner(store, ds, allProjections(), [], { pollMs: 10, external: [index] });
    try {
      await runner.setup({ awaitExternal: false });
      runner.start();
      index.finishSetup(new Error('damaged file'));
      await expect(runner.externalReady).rejects.toThrow('damaged file');
      await new Promise((r) => setTimeout(r, 100));
      expect(index.calls).toEqual(['setup']);
    } finally {
      await runner.stop();
    }
  });

  it('awaits the index by default (the CLI and the worker)', async () => {
    const index = new SlowIndex();
    const runner = new ProjectionRunner(store, ds, allProjections(), [], { pollMs: 10, external: [index] });
    let done = false;
    const setup = runner.setup().then(() => (done = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    index.finishSetup();
    await setup;
    expect(done).toBe(true);
  });
});

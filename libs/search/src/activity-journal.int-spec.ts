import { spawnSync } from 'child_process';
import { copyFileSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Pool } from 'pg';
import { createServerTestDatabase, TestDatabase } from '../../database/src/testing/test-databases';
import { PostgresEventStore } from '../../event-store/src/postgres/postgres.event-store';
import { SearchActivity } from './search-activity';
import { searchActivityStream } from './streams';
import type { SearchActivityEvent } from './events';
import type { SearchConfig } from './search.config';

const searchEvent = (i: number): SearchActivityEvent =>
  ({
    type: 'StoreSearchPerformed',
    data: {
      searchId: `s${i}`,
      organizationId: 'org_j',
      apiKeyId: 'key_j',
      storeIds: [],
      filters: null,
      topK: 10,
      results: [],
      searchTimeMs: 1,
      at: new Date(0).toISOString(),
      query: `query ${i}`,
    },
  }) as unknown as SearchActivityEvent;

/** The pid of a process that has ended (a crashed server's segments carry such a pid). */
const deadPid = () =>
  spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();

/** The journal's segments made to look like those of a process that is gone. */
function orphan(dir: string): void {
  const pid = deadPid();
  for (const f of readdirSync(dir)) {
    const [host, , ...rest] = f.split('.');
    renameSync(join(dir, f), join(dir, [host, pid, ...rest].join('.')));
  }
}

describe('request records are journaled before they are answered: a crash loses none, a replay duplicates none (postgres)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let store: PostgresEventStore;
  let dir: string;
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const activity = () => {
    const a = new SearchActivity(
      store,
      { now: () => new Date() },
      { uuid: () => 'id' } as never,
      { activityJournalDir: dir } as SearchConfig,
    );
    Object.assign(a, { logger: quiet });
    return a;
  };
  const stored = async () =>
    (await store.readStream(searchActivityStream('org_j'))).map((e) => (e.data as { query: string }).query);
  const until = async (n: number) => {
    for (let i = 0; i < 200 && (await stored()).length < n; i++) await new Promise((r) => setTimeout(r, 25));
    return stored();
  };

  beforeAll(async () => {
    db = await createServerTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined);
    store = new PostgresEventStore(pool, { schema: 'es_journal', pollMs: 20 });
    await store.setup();
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'larder-journal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(async () => {
    await store.close();
    await pool.end();
    await db.drop();
  });

  it('records queued when the process died are stored by the next start', async () => {
    const dying = activity();
    for (let i = 0; i < 5; i++) dying.record('org_j', searchEvent(i));
    // no flush: the process is killed here; its segment stays behind
    orphan(dir);
    expect(await stored()).toEqual([]);
    activity().onApplicationBootstrap();
    expect(await until(5)).toEqual(['query 0', 'query 1', 'query 2', 'query 3', 'query 4']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a segment stored before the crash removed it is not stored twice; a flush removes what it stored', async () => {
    const a = activity();
    for (let i = 5; i < 8; i++) a.record('org_j', searchEvent(i));
    const [segment] = readdirSync(dir);
    copyFileSync(join(dir, segment), join(dir, `${segment}.kept`));
    await a.flush();
    expect(readdirSync(dir)).toEqual([`${segment}.kept`]);
    renameSync(join(dir, `${segment}.kept`), join(dir, segment));
    orphan(dir);
    const before = (await stored()).length;
    activity().onApplicationBootstrap();
    for (let i = 0; i < 100 && readdirSync(dir).length; i++) await new Promise((r) => setTimeout(r, 25));
    expect(readdirSync(dir)).toEqual([]);
    expect((await stored()).length).toBe(before);
  });
});

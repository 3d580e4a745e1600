import { randomBytes } from 'crypto';
import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { createServerTestDatabase, TestDatabase } from '../libs/database/src/testing/test-databases';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';

jest.setTimeout(300_000);

const WORDS = (
  'brine cellar crock dill ferment garlic harvest jar kettle ladle lemon lid mustard onion pantry pepper pickle plum ' +
  'preserve quince relish salt shelf simmer sugar syrup thyme tomato vinegar winter apricot cabbage carrot cherry ' +
  'chutney cinnamon clove cucumber fig ginger honey label pear pectin radish rhubarb spice sterilize strawberry'
).split(' ');

/** A deterministic, distinct Markdown document: two sections of ~120 words each. */
function document(i: number): string {
  let seed = i * 7919 + 17;
  const word = () => WORDS[(seed = (seed * 48271) % 2147483647) % WORDS.length];
  const paragraph = (n: number) => Array.from({ length: n }, word).join(' ') + '.';
  return `# Larder note ${i}\n\n${paragraph(60)}\n\n${paragraph(60)}\n\n## Storage ${i}\n\n${paragraph(70)}\n\n${paragraph(50)}\n`;
}

/**
 * `kill -9` while 50 files are being ingested by the compiled server (local embedder, machine's
 * PostgreSQL for the event store and read models, embedded chunk index), then a restart: every file
 * ends `completed` exactly once (one StoreFileIngested per store file), no chunk is duplicated, and the
 * corrupt PDF among them ends `failed` with a useful `last_error`.
 */
describe('crash recovery: kill -9 during the ingestion of 50 files', () => {
  let db: TestDatabase;
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-ingest-crash-'));
  const rootKey = `lrd_crash_${randomBytes(24).toString('base64url')}`;
  let server: ServerProcess | null = null;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(join(__dirname, '..', 'dist/apps/api/src/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
    db = await createServerTestDatabase('larder_ingest_crash');
    env = {
      LARDER_DATA_DIR: dataDir,
      LARDER_ROOT_KEY: rootKey,
      DATABASE_URL: db.url,
      LARDER_INGESTION_LEASE_SECONDS: '4',
      LARDER_INGESTION_RETRY_BASE_MS: '200',
    };
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  it('every file ends completed exactly once, with no duplicate chunk; the corrupt PDF fails', async () => {
    const port = await freePort();
    server = await startServerProcess(env, port);
    const c = new Mixedbread({ apiKey: rootKey, baseURL: server.baseURL, maxRetries: 0, timeout: 30_000 });
    const store = await c.stores.create({ name: 'crash-pantry' });
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const sf = await c.stores.files.upload({
        storeIdentifier: store.id,
        file: await toFile(Buffer.from(document(i)), `note-${i}.md`, { type: 'text/markdown' }),
      });
      ids.push(sf.id);
    }
    const corrupt = await c.stores.files.upload({
      storeIdentifier: store.id,
      file: await toFile(readFileSync(join(__dirname, 'fixtures/ingestion/corrupt.pdf')), 'corrupt.pdf', {
        type: 'application/pdf',
      }),
    });

    // Kill once some files are done and the rest are still queued or running.
    const deadline = Date.now() + 120_000;
    let counts = (await c.stores.retrieve(store.id)).file_counts!;
    while ((counts.completed ?? 0) < 8 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      counts = (await c.stores.retrieve(store.id)).file_counts!;
    }
    server.kill9();
    await new Promise((r) => server!.child.once('exit', r));
    // eslint-disable-next-line no-console
    console.log(`ingestion crash: killed with ${JSON.stringify(counts)}`);
    expect(counts.completed).toBeGreaterThanOrEqual(8);
    expect((counts.pending ?? 0) + (counts.in_progress ?? 0)).toBeGreaterThan(0);

    server = await startServerProcess(env, port);
    const after = new Mixedbread({ apiKey: rootKey, baseURL: server.baseURL, maxRetries: 0, timeout: 30_000 });
    const until = Date.now() + 180_000;
    let s = await after.stores.retrieve(store.id);
    while ((s.file_counts!.pending || s.file_counts!.in_progress) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      s = await after.stores.retrieve(store.id);
    }
    expect(s.file_counts).toEqual({ pending: 0, in_progress: 0, cancelled: 0, completed: 50, failed: 1, total: 51 });
    const failed = await after.stores.files.retrieve(corrupt.id, { store_identifier: store.id });
    expect(failed.status).toBe('failed');
    expect(JSON.stringify(failed.last_error)).toMatch(/pdf/i);

    let chunkTotal = 0;
    for (const id of ids) {
      const f = await after.stores.files.retrieve(id, { store_identifier: store.id, return_chunks: true });
      expect(f.status).toBe('completed');
      const indices = f.chunks!.map((ch) => ch.chunk_index);
      expect(indices).toEqual(indices.map((_, i) => i)); // 0..n-1, no gap, no repeat
      expect(f.chunks!.every((ch) => (ch as { model?: string }).model === 'universal-sentence-encoder-lite')).toBe(
        true,
      );
      chunkTotal += indices.length;
    }
    await server.stop();
    server = null;

    // Exactly once in the event store: one StoreFileIngested per store file.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const rows = await pg.query<{ stream_id: string; n: string }>(
      `SELECT stream_id, count(*) AS n FROM larder_events.events WHERE type = 'StoreFileIngested' GROUP BY stream_id`,
    );
    await pg.end();
    expect(rows.rows.length).toBe(50);
    expect(rows.rows.every((r) => r.n === '1')).toBe(true);

    // No duplicate chunk in the index: one row per (file, chunk_index), as many as the API showed.
    const index = new Database(join(dataDir, 'chunk-index', 'chunks.sqlite'), { readonly: true });
    const total = index
      .prepare(
        `SELECT count(*) AS n, count(DISTINCT file_id || ':' || chunk_index) AS d, count(vector) AS v FROM chunks WHERE store_id = ?`,
      )
      .get(store.id) as {
      n: number;
      d: number;
      v: number;
    };
    const snapshot = () => {
      const db = new Database(join(dataDir, 'chunk-index', 'chunks.sqlite'), { readonly: true });
      const rows = db
        .prepare(`SELECT file_id, chunk_index, text, model, hex(vector) AS v FROM chunks ORDER BY file_id, chunk_index`)
        .all();
      db.close();
      return rows;
    };
    index.close();
    expect(total).toEqual({ n: chunkTotal, d: chunkTotal, v: chunkTotal });

    // `replay chunk-index` rebuilds the same index from the artifacts (no parsing, no embedding).
    const before = snapshot();
    const out = execFileSync(
      process.execPath,
      [
        '-r',
        join(__dirname, '..', 'tools/paths.js'),
        join(__dirname, '..', 'dist/apps/cli/src/main.js'),
        'replay',
        'chunk-index',
      ],
      {
        env: { ...process.env, NODE_OPTIONS: '', ...env, LARDER_LOG_LEVEL: 'warn' },
        encoding: 'utf8',
      },
    );
    expect(out).toMatch(/replayed chunk-index/);
    expect(snapshot()).toEqual(before);
  });
});

import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';

jest.setTimeout(240_000);

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** kill -9 while a store of 50 files is being copied, then a restart: the copy resumes and finishes. */
describe('store copy survives kill -9 (embedded default)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-copy-crash-'));
  const rootKey = `lrd_copy_${randomBytes(24).toString('base64url')}`;
  const env = { LARDER_DATA_DIR: dataDir, LARDER_ROOT_KEY: rootKey };
  let server: ServerProcess | null = null;

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('after the restart both stores are usable and the target holds all 50 files', async () => {
    const port = await freePort();
    server = await startServerProcess(env, port);
    const client = () => new Mixedbread({ apiKey: rootKey, baseURL: server!.baseURL, maxRetries: 0, timeout: 60_000 });
    let c = client();
    const source = await c.stores.create({ name: 'original' });
    const files = await Promise.all(
      Array.from({ length: 50 }, async (_, i) =>
        c.files.create({
          file: await toFile(Buffer.from(`document ${i}: preserves, jams and pickles number ${i}`), `doc-${i}.txt`, {
            type: 'text/plain',
          }),
        }),
      ),
    );
    for (const f of files) await c.stores.files.create(source.id, { file_id: f.id });
    await eventually(
      () => c.stores.retrieve(source.id),
      (s) => s.file_counts!.completed === 50,
    );

    const target = (await c.stores.copy(source.id, { name: 'duplicate' })) as unknown as {
      id: string;
      copy_state: unknown;
      file_counts: { total: number };
    };
    server.kill9();
    await new Promise((r) => setTimeout(r, 200));
    // eslint-disable-next-line no-console
    console.log(
      `copy: killed with the target answered (copy_state ${JSON.stringify(target.copy_state)}, ${target.file_counts.total} files at answer time)`,
    );

    server = await startServerProcess(env, port);
    c = client();
    const done = await eventually(
      () => c.stores.retrieve(target.id),
      (s) => (s as unknown as { copy_state: unknown }).copy_state === null && s.file_counts!.total === 50,
    );
    expect(done.status).toBe('completed');
    expect(done.file_counts).toMatchObject({ completed: 50, total: 50 });
    const src = await c.stores.retrieve(source.id);
    expect((src as unknown as { copy_state: unknown }).copy_state).toBeNull();
    // both usable: the source can be written and deleted from, the target searched
    const extra = await c.files.create({
      file: await toFile(Buffer.from('one more jar'), 'extra.txt', { type: 'text/plain' }),
    });
    await c.stores.files.create(source.id, { file_id: extra.id });
    const hits = await c.stores.search({ query: 'pickles number 7', store_identifiers: [target.id], top_k: 3 });
    expect(hits.data.length).toBeGreaterThan(0);
    await c.stores.delete(target.id);
  });
});

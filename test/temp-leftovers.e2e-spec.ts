import { randomBytes } from 'crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'fs';
import { request } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import Mixedbread from '@mixedbread/sdk';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';

jest.setTimeout(180_000);

/** Every file under `dir` with its size. */
function filesUnder(dir: string): Array<{ path: string; bytes: number }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath ?? e.path, e.name);
      return { path, bytes: statSync(path).size };
    });
}

/** `kill -9` while a multipart part is being written: the temp file it leaves is gone after the restart. */
describe('crash leftovers: a temp file of a part cut off by kill -9', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-leftovers-'));
  const rootKey = `lrd_leftovers_${randomBytes(24).toString('base64url')}`;
  const env = { LARDER_DATA_DIR: dataDir, LARDER_ROOT_KEY: rootKey };
  const tmp = join(dataDir, 'blobs', 'tmp');
  let server: ServerProcess | null = null;

  beforeAll(() => {
    if (!existsSync(join(__dirname, '..', 'dist/apps/api/src/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is removed when the server starts again, and the upload can still be completed', async () => {
    const port = await freePort();
    server = await startServerProcess(env, port);
    const client = new Mixedbread({ apiKey: rootKey, baseURL: server.baseURL, maxRetries: 0 });
    const part = randomBytes(6 * 1024 * 1024);
    const up = await client.files.uploads.create({
      filename: 'cut.bin',
      file_size: part.length,
      mime_type: 'application/octet-stream',
      part_count: 1,
    });

    // 4 MiB of the part's 6 arrive, then the client goes quiet: the server is mid-write
    const url = new URL(up.part_urls[0].url);
    const req = request({
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: 'PUT',
      headers: { 'content-length': String(part.length) },
    });
    req.on('error', () => undefined);
    req.write(part.subarray(0, 4 * 1024 * 1024));
    const deadline = Date.now() + 30_000;
    while (!filesUnder(tmp).some((f) => f.bytes >= 4 * 1024 * 1024)) {
      if (Date.now() > deadline) throw new Error(`no temp file of 4 MiB appeared: ${JSON.stringify(filesUnder(tmp))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    server.kill9();
    await new Promise((r) => server!.child.once('exit', r));
    req.destroy();
    expect(filesUnder(tmp).length).toBeGreaterThan(0);

    server = await startServerProcess(env, port);
    const until = Date.now() + 10_000;
    while (filesUnder(tmp).length && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(filesUnder(tmp)).toEqual([]);

    // the upload itself is untouched: the part is sent again and completed
    const after = new Mixedbread({ apiKey: rootKey, baseURL: server.baseURL, maxRetries: 0 });
    const detail = await after.files.uploads.retrieve(up.id);
    expect(detail.completed_parts).toEqual([]);
    const r = await fetch(detail.part_urls[0].url, { method: 'PUT', body: part });
    expect(r.status).toBe(200);
    const file = await after.files.uploads.complete(up.id, {
      parts: [{ part_number: 1, etag: r.headers.get('etag')! }],
    });
    expect(file.bytes).toBe(part.length);
    expect(filesUnder(tmp)).toEqual([]);
  });
});

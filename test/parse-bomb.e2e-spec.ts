import { readFileSync } from 'fs';
import { join } from 'path';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { docxBomb } from '../bench/docx-bomb';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
type Detail = { loc: unknown[]; type: string; msg: string };

/**
 * Untrusted documents and multipart bodies with bounded memory: a DOCX whose document.xml inflates to
 * 1.2 GB fails on its own (the server's default limits), and a multipart part a route does not take
 * is refused at its loc with nothing stored. The RSS it costs is measured by `npm run bench -- parse-bomb`.
 */
describe('memory bounds on untrusted input', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;

  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_INGESTION_POLL_MS: '100' } });
    key = (await t.newOrganization('bombs')).apiKey;
    c = t.client(key);
  });
  afterAll(async () => t?.close());

  const post = (path: string, body: FormData) =>
    fetch(`${t.baseURL}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
  const details = async (res: Response) => {
    expect(res.status).toBe(422);
    return ((await res.json()) as { detail: Detail[] }).detail.map((d) => [d.loc.join('.'), d.type]);
  };
  const fileCount = async () => (await c.files.list({ include_total: true })).pagination.total ?? 0;

  it('fails a DOCX bomb cleanly while the server answers and other files ingest', async () => {
    const store = await c.stores.create({ name: 'bombs' });
    const upload = async (name: string, body: Buffer, type: string) =>
      c.stores.files.uploadAndPoll({
        storeIdentifier: store.id,
        file: await toFile(body, name, { type }),
        pollIntervalMs: 100,
      });
    const [bomb, handbook] = await Promise.all([
      upload('bomb.docx', docxBomb(), DOCX),
      upload('handbook.docx', readFileSync(join(__dirname, 'fixtures/ingestion/handbook.docx')), DOCX),
    ]);
    expect(bomb.status).toBe('failed');
    expect(bomb.last_error).toMatchObject({
      message: expect.stringMatching(/expands to more than 128 MiB when decompressed \(LARDER_PARSE_MAX_INFLATED_MB\)/),
    });
    expect(handbook.status).toBe('completed');
    expect((await fetch(`${t.baseURL}/health/live`)).status).toBe(200);
    const after = await upload(
      'notes.txt',
      readFileSync(join(__dirname, 'fixtures/ingestion/notes.txt')),
      'text/plain',
    );
    expect(after.status).toBe('completed');
  });

  it('refuses a multipart part the route does not take, storing nothing', async () => {
    const before = await fileCount();
    const form = (extra: Record<string, string>, fileFirst = true) => {
      const f = new FormData();
      if (fileFirst) f.append('file', new Blob(['quince paste']), 'quince.txt');
      for (const [k, v] of Object.entries(extra)) f.append(k, v);
      if (!fileFirst) f.append('file', new Blob(['quince paste']), 'quince.txt');
      return f;
    };
    // after the file part and before it, of any size (read past, never kept)
    expect(await details(await post('/v1/files', form({ bogus: 'x' })))).toEqual([['body.bogus', 'extra_forbidden']]);
    expect(await details(await post('/v1/files', form({ bogus: 'x'.repeat(2 * 1024 * 1024) }, false)))).toEqual([
      ['body.bogus', 'extra_forbidden'],
    ]);
    expect(
      await details(await post('/v1/files', form({ purpose: 'assistants', 'expires_after[anchor]': 'created_at' }))),
    ).toEqual([['body.expires_after[anchor]', 'extra_forbidden']]);
    const created = await c.files.create({ file: await toFile(Buffer.from('quince'), 'q.txt') });
    expect(await details(await post(`/v1/files/${created.id}`, form({ purpose: 'assistants' })))).toEqual([
      ['body.purpose', 'extra_forbidden'],
    ]);
    // a declared part over its size
    expect(await details(await post('/v1/files', form({ purpose: 'p'.repeat(100) })))).toEqual([
      ['body.purpose', 'string_too_long'],
    ]);
    const store = await c.stores.create({ name: 'parts' });
    expect(
      await details(await post(`/v1/stores/${store.id}/files/upload`, form({ params: '{}', surprise: '1' }))),
    ).toEqual([['body.surprise', 'extra_forbidden']]);
    expect(await fileCount()).toBe(before + 1);
    expect((await c.stores.files.list(store.id, {})).data).toEqual([]);
    // the parts a route takes still work
    const ok = await post('/v1/files', form({ purpose: 'assistants', description: 'Quince paste' }));
    expect(ok.status).toBe(201);
    expect(
      await post(
        `/v1/stores/${store.id}/files/upload`,
        form({ params: JSON.stringify({ metadata: { a: 1 } }), external_id: 'q-1' }),
      ).then((r) => r.status),
    ).toBe(201);
  });
});

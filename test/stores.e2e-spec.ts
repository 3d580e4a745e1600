import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);
const FIXTURES = join(__dirname, 'fixtures', 'ingestion');
const MIME: Record<string, string> = {
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.png': 'image/png',
};
const mimeOf = (name: string) => MIME[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';

/** Polls until no file of the store is pending or in progress. */
async function settle(c: Mixedbread, store: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await c.stores.retrieve(store);
    if (s.file_counts!.pending === 0 && s.file_counts!.in_progress === 0) return s;
    if (Date.now() > deadline) throw new Error(`store ${store} did not settle: ${JSON.stringify(s.file_counts)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Stores, store files and ingestion through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let other: Mixedbread;
  let key: string;

  beforeAll(async () => {
    t = await startTestLarder();
    key = (await t.newOrganization('stores')).apiKey;
    c = t.client(key);
    other = t.client((await t.newOrganization('someone else')).apiKey);
  });
  afterAll(async () => t?.close());

  const raw = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${t.baseURL}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${init.key ?? key}`,
        'content-type': 'application/json',
        ...(init.headers ?? {}),
      },
    });

  it('creates, finds by id and by name, lists with q, renames, refuses a taken or malformed name, deletes', async () => {
    const s = await c.stores.create({
      name: 'kitchen-notes',
      description: 'Recipes and preserves',
      metadata: { team: 'cooks' },
    });
    expect(s).toMatchObject({
      id: expect.any(String),
      name: 'kitchen-notes',
      description: 'Recipes and preserves',
      metadata: { team: 'cooks' },
      status: 'completed',
      file_counts: { pending: 0, in_progress: 0, cancelled: 0, completed: 0, failed: 0, total: 0 },
      usage_bytes: 0,
      object: 'store',
    });
    expect((await c.stores.retrieve('kitchen-notes')).id).toBe(s.id);
    expect((await c.stores.retrieve(s.id)).name).toBe('kitchen-notes');
    await expect(c.stores.create({ name: 'kitchen-notes' })).rejects.toMatchObject({ status: 409 });
    const bad = await raw('/v1/stores', { method: 'POST', body: JSON.stringify({ name: 'Not A Name!' }) });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: Array<{ loc: unknown }> }).detail[0].loc).toEqual(['body', 'name']);

    await c.stores.create({ name: 'garden-log', description: 'Tomatoes' });
    const found = [];
    for await (const x of c.stores.list({ q: 'kitchen' })) found.push(x.name);
    expect(found).toEqual(['kitchen-notes']);

    const renamed = await c.stores.update('kitchen-notes', { name: 'pantry-notes', description: 'renamed' });
    expect(renamed).toMatchObject({ id: s.id, name: 'pantry-notes', description: 'renamed' });
    await expect(c.stores.retrieve('kitchen-notes')).rejects.toMatchObject({ status: 404 });
    expect((await c.stores.create({ name: 'kitchen-notes' })).id).not.toBe(s.id); // the old name is free again

    expect(await c.stores.delete('pantry-notes')).toMatchObject({ id: s.id, deleted: true });
    await expect(c.stores.retrieve(s.id)).rejects.toMatchObject({ status: 404 });
  });

  it('bad bodies, queries and paths are 422s with the loc of the bad part', async () => {
    const detail = async (res: Response) => {
      expect(res.status).toBe(422);
      return ((await res.json()) as { detail: Array<{ loc: unknown[]; type: string }> }).detail.map((d) => [
        d.loc.join('.'),
        d.type,
      ]);
    };
    const s = await c.stores.create({ name: 'shapes' });
    expect(await detail(await raw('/v1/stores?limit=0'))).toEqual([['query.limit', 'greater_than_equal']]);
    expect(
      await detail(await raw('/v1/stores', { method: 'POST', body: JSON.stringify({ file_ids: ['nope'] }) })),
    ).toEqual([['body.file_ids', 'uuid_parsing']]);
    expect(
      await detail(await raw(`/v1/stores/${s.id}/copy`, { method: 'POST', body: JSON.stringify({}) })),
    ).toContainEqual(['body.name', 'string_type']);
    expect(
      await detail(
        await raw(`/v1/stores/${s.id}/files`, {
          method: 'POST',
          body: JSON.stringify({ file_id: 'nope', config: { parsing_strategy: 'slow' } }),
        }),
      ),
    ).toEqual([
      ['body.file_id', 'uuid_parsing'],
      ['body.config.parsing_strategy', 'enum'],
    ]);
    expect(
      await detail(
        await raw(`/v1/stores/${s.id}/files/list`, { method: 'POST', body: JSON.stringify({ statuses: ['done'] }) }),
      ),
    ).toEqual([['body.statuses', 'enum']]);
    expect(
      await detail(
        await raw(`/v1/stores/${s.id}/files/list`, {
          method: 'POST',
          body: JSON.stringify({ metadata_filter: { key: 'generated_metadata.x', operator: 'eq', value: 1 } }),
        }),
      ),
    ).toEqual([['body.metadata_filter', 'value_error']]);
    expect(await detail(await raw(`/v1/stores/${s.id}/files?statuses=done`))).toEqual([['query.statuses', 'enum']]);
    expect(await detail(await raw(`/v1/stores/${s.id}/files/${s.id}?return_chunks=first`))).toEqual([
      ['query.return_chunks', 'value_error'],
    ]);
    const form = new FormData();
    form.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    form.append('params', '{not json');
    const upload = await fetch(`${t.baseURL}/v1/stores/${s.id}/files/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(await detail(upload)).toEqual([['body.params', 'json_invalid']]);
    const admin = (path: string) => raw(path, { method: 'POST', key: t.rootKey });
    expect(await detail(await admin(`/v1/admin/stores/not-an-org/${s.id}/reingest`))).toEqual([
      ['path.organization_id', 'uuid_parsing'],
    ]);
    const org = '00000000-0000-4000-8000-000000000000';
    expect(await detail(await admin(`/v1/admin/stores/${org}/${s.id}/reingest?statuses=completed,done`))).toEqual([
      ['query.statuses', 'enum'],
    ]);
    expect(await detail(await admin(`/v1/admin/stores/${org}/${s.id}/reingest?billable=maybe`))).toEqual([
      ['query.billable', 'bool_parsing'],
    ]);
  });

  describe('a folder of mixed documents', () => {
    let store: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      store = (await c.stores.create({ name: 'mixed-folder' })).id;
      for (const name of readdirSync(FIXTURES).sort()) {
        const body = readFileSync(join(FIXTURES, name));
        const sf = await c.stores.files.upload({
          storeIdentifier: store,
          file: await toFile(body, name, { type: mimeOf(name) }),
          body: { metadata: { kind: name.slice(name.lastIndexOf('.') + 1), size: body.length, folder: 'fixtures' } },
        });
        expect(['pending', 'in_progress', 'completed']).toContain(sf.status);
        ids[name] = sf.id;
      }
    });

    it('every supported file reaches completed; the corrupt PDF and the image fail with a useful last_error', async () => {
      const s = await settle(c, store);
      const total = Object.keys(ids).length;
      expect(s.file_counts).toEqual({
        pending: 0,
        in_progress: 0,
        cancelled: 0,
        completed: total - 2,
        failed: 2,
        total,
      });
      expect(s.usage_bytes).toBeGreaterThan(0);
      const corrupt = await c.stores.files.retrieve(ids['corrupt.pdf'], { store_identifier: store });
      expect(corrupt.status).toBe('failed');
      expect(JSON.stringify(corrupt.last_error)).toMatch(/pdf/i);
      const image = await c.stores.files.retrieve(ids['image.png'], { store_identifier: store });
      expect(image.status).toBe('failed');
      expect(JSON.stringify(image.last_error)).toMatch(/image\/png|unsupported/i);
    });

    it('uploadAndPoll returns the completed file with chunks and generated metadata', async () => {
      const md =
        '# Bread\n\nFlour, water, salt and time.\n\n## Proofing\n\nLet the dough rise overnight in a cool place.\n';
      const sf = await c.stores.files.uploadAndPoll({
        storeIdentifier: store,
        file: await toFile(Buffer.from(md), 'bread.md', { type: 'text/markdown' }),
        body: { metadata: { kind: 'md', folder: 'extra' }, config: { parsing_strategy: 'high_quality' } },
        pollIntervalMs: 100,
        returnChunks: true,
      });
      expect(sf).toMatchObject({
        status: 'completed',
        filename: 'bread.md',
        config: { parsing_strategy: 'high_quality' },
        store_id: store,
      });
      expect(sf.chunks!.length).toBeGreaterThan(0);
      const first = sf.chunks![0] as unknown as {
        text: string;
        model: string;
        generated_metadata: Record<string, unknown>;
      };
      expect(first.text).toContain('Flour, water, salt');
      expect(first.model).toBe('universal-sentence-encoder-lite');
      expect(first.generated_metadata).toMatchObject({ type: 'markdown' });
      ids['bread.md'] = sf.id;
    });

    it('the PDF keeps its pages, code its language, and return_chunks takes indices', async () => {
      const pdf = await c.stores.files.retrieve(ids['report.pdf'], { store_identifier: store, return_chunks: true });
      const pages = pdf.chunks!.map(
        (ch) => ch.generated_metadata as { type: string; page: number; pages: number[]; total_pages?: number },
      );
      expect(pages.every((m) => m.type === 'pdf')).toBe(true);
      expect(new Set(pages.map((m) => m.total_pages))).toEqual(new Set([3]));
      expect(new Set(pages.flatMap((m) => m.pages))).toEqual(new Set([1, 2, 3]));
      expect(pages.every((m) => m.page === m.pages[0])).toBe(true);
      // `fast` keeps the text layer as it is; `high_quality` drops the running "Page N" footers
      const fastText = pdf.chunks!.map((ch) => (ch as { text: string }).text).join('\n');
      expect(fastText).toMatch(/Page 2/);
      const hq = (await c.stores.create({ name: 'high-quality' })).id;
      const again = await c.stores.files.createAndPoll({
        storeIdentifier: hq,
        body: { file_id: ids['report.pdf'], config: { parsing_strategy: 'high_quality' } },
        pollIntervalMs: 100,
        returnChunks: true,
      });
      expect(again.status).toBe('completed');
      const hqText = again.chunks!.map((ch) => (ch as { text: string }).text).join('\n');
      expect(hqText).toContain('Cold storage capacity doubled');
      expect(hqText).not.toMatch(/Page \d/);
      const code = await c.stores.files.retrieve(ids['ferment.py'], { store_identifier: store, return_chunks: [0] });
      expect(code.chunks!.map((ch) => ch.chunk_index)).toEqual([0]);
      expect(code.chunks![0].generated_metadata).toMatchObject({ type: 'code', language: 'python' });
      const plain = await c.stores.files.retrieve(ids['notes.txt'], { store_identifier: store });
      expect(plain.chunks).toBeUndefined();
    });

    it('the content_url downloads the file’s bytes without an API key', async () => {
      const sf = await c.stores.files.retrieve(ids['guide.md'], { store_identifier: store });
      const res = await fetch(sf.content_url);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(FIXTURES, 'guide.md')))).toBe(true);
      const tampered = sf.content_url.replace(/signature=[^&]+/, 'signature=AAAA');
      expect((await fetch(tampered)).status).toBe(404); // a bad or expired signature reveals nothing
    });

    it('lists with statuses, a metadata filter and q; patched metadata is filterable at once', async () => {
      const list = await c.stores.files.list(store, { statuses: ['failed'] });
      expect(list.data.map((f) => f.filename).sort()).toEqual(['corrupt.pdf', 'image.png']);
      const small = await c.stores.files.list(store, {
        metadata_filter: {
          all: [
            { key: 'folder', operator: 'eq', value: 'fixtures' },
            { key: 'size', operator: 'lt', value: 200 },
          ],
        },
      } as never);
      const expected = readdirSync(FIXTURES)
        .filter((n) => readFileSync(join(FIXTURES, n)).length < 200)
        .sort();
      expect(small.data.map((f) => f.filename).sort()).toEqual(expected);
      const q = await c.stores.files.list(store, { q: 'recipe' });
      expect(q.data.map((f) => f.filename)).toContain('recipes.html');

      const updated = await c.stores.files.update(ids['notes.txt'], {
        store_identifier: store,
        metadata: { folder: 'archive', reviewed: true },
      });
      expect(updated.metadata).toEqual({ folder: 'archive', reviewed: true });
      expect(updated.status).toBe('completed'); // no re-ingestion for a metadata change
      const archived = await c.stores.files.list(store, {
        metadata_filter: { key: 'reviewed', operator: 'eq', value: true },
      } as never);
      expect(archived.data.map((f) => f.filename)).toEqual(['notes.txt']);
    });

    it('another organization sees none of it', async () => {
      await expect(other.stores.retrieve(store)).rejects.toMatchObject({ status: 404 });
      await expect(other.stores.retrieve('mixed-folder')).rejects.toMatchObject({ status: 404 });
      await expect(other.stores.files.list(store, {})).rejects.toMatchObject({ status: 404 });
      await expect(other.stores.files.retrieve(ids['guide.md'], { store_identifier: store })).rejects.toMatchObject({
        status: 404,
      });
      await expect(other.stores.files.delete(ids['guide.md'], { store_identifier: store })).rejects.toMatchObject({
        status: 404,
      });
      const mine = [];
      for await (const s of other.stores.list()) mine.push(s.id);
      expect(mine).not.toContain(store);
      // the other organization may use the same name for its own store
      expect((await other.stores.create({ name: 'mixed-folder' })).id).not.toBe(store);
    });

    it('copies the store with files, metadata and chunks, without re-ingesting', async () => {
      const source = await c.stores.retrieve(store);
      const started = await c.stores.copy(store, { name: 'mixed-folder-copy' });
      expect(started.name).toBe('mixed-folder-copy');
      const deadline = Date.now() + 60_000;
      let target = started;
      while (target.copy_state && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        target = await c.stores.retrieve(started.id);
      }
      expect(target.copy_state ?? null).toBeNull();
      // completed files are copied with their chunks; failed ones have nothing indexed and stay behind
      const done = source.file_counts!.completed;
      expect(target.file_counts).toEqual({
        pending: 0,
        in_progress: 0,
        cancelled: 0,
        completed: done,
        failed: 0,
        total: done,
      });
      const a = await c.stores.files.retrieve(ids['guide.md'], { store_identifier: store, return_chunks: true });
      const b = await c.stores.files.retrieve(ids['guide.md'], { store_identifier: target.id, return_chunks: true });
      expect(b).toMatchObject({ status: 'completed', metadata: a.metadata, filename: 'guide.md' });
      expect(b.chunks).toEqual(a.chunks);
      expect((await c.stores.retrieve(store)).copy_state ?? null).toBeNull();
    });

    it('deleting a store file removes it and its chunks; deleting the file removes it from every store', async () => {
      expect(await c.stores.files.delete(ids['inventory.csv'], { store_identifier: store })).toMatchObject({
        id: ids['inventory.csv'],
        deleted: true,
      });
      await expect(c.stores.files.retrieve(ids['inventory.csv'], { store_identifier: store })).rejects.toMatchObject({
        status: 404,
      });

      const before = await c.stores.retrieve('mixed-folder-copy');
      await c.files.delete(ids['settings.json']);
      for (const s of [store, 'mixed-folder-copy']) {
        await expect(c.stores.files.retrieve(ids['settings.json'], { store_identifier: s })).rejects.toMatchObject({
          status: 404,
        });
      }
      const after = await c.stores.retrieve('mixed-folder-copy');
      expect(after.file_counts!.total).toBe(before.file_counts!.total! - 1);
      expect(after.usage_bytes).toBeLessThan(before.usage_bytes!);
    });

    it('overwrite replaces the file with the same external_id', async () => {
      const a = await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from('first version'), 'ext.txt', { type: 'text/plain' }),
        body: { external_id: 'doc-42' },
      });
      const b = await c.stores.files.upload({
        storeIdentifier: store,
        file: await toFile(Buffer.from('second version'), 'ext.txt', { type: 'text/plain' }),
        body: { external_id: 'doc-42', overwrite: true },
      });
      expect(b.external_id).toBe('doc-42');
      await expect(c.stores.files.retrieve(a.id, { store_identifier: store })).rejects.toMatchObject({ status: 404 });
      const dup = await raw(`/v1/stores/${store}/files`, {
        method: 'POST',
        body: JSON.stringify({ file_id: a.id, external_id: 'doc-42', overwrite: false }),
      });
      expect(dup.status).toBe(409);
      expect((await c.stores.files.retrieve(b.id, { store_identifier: store })).external_id).toBe('doc-42');
    });
  });
});

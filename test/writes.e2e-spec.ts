import { randomUUID } from 'crypto';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { storeExternalIdStream } from '@larder/stores/streams';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function settled(c: Mixedbread, store: string) {
  return eventually(
    () => c.stores.retrieve(store),
    (s) => s.file_counts!.pending === 0 && s.file_counts!.in_progress === 0,
    120_000,
  );
}

describe('writes that never lie', () => {
  describe('concurrent upserts of one external_id (a file watcher on a rename)', () => {
    let t: TestLarder;
    let c: Mixedbread;
    beforeAll(async () => {
      t = await startTestLarder();
      c = t.client((await t.newOrganization('watcher')).apiKey);
    });
    afterAll(async () => t?.close());

    it('twenty parallel stores.files.upload with one external_id and overwrite: every call succeeds, one store file remains', async () => {
      const store = await c.stores.create({ name: 'watched' });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          c.stores.files.upload({
            storeIdentifier: store.id,
            file: toFile(Buffer.from(`version ${i} of the notes: ${'lorem ipsum '.repeat(i + 1)}`), 'notes.md', {
              type: 'text/markdown',
            }),
            body: { external_id: 'src/notes.md', overwrite: true },
          } as never),
        ),
      );
      const failed = results.filter((r) => r.status === 'rejected');
      expect(failed.map((r) => String(r.reason))).toEqual([]);
      const s = await settled(c, store.id);
      const files = (await c.stores.files.list(store.id, { limit: 100 })).data as {
        id: string;
        external_id?: string | null;
      }[];
      expect(files.filter((f) => f.external_id === 'src/notes.md')).toHaveLength(1);
      expect(files).toHaveLength(1);
      expect(s.file_counts).toMatchObject({ total: 1 });
      // a later upsert still replaces it
      await c.stores.files.upload({
        storeIdentifier: store.id,
        file: toFile(Buffer.from('the final notes'), 'notes.md', { type: 'text/markdown' }),
        body: { external_id: 'src/notes.md', overwrite: true },
      } as never);
      const after = await settled(c, store.id);
      expect(after.file_counts).toMatchObject({ total: 1 });
    });

    it('overwrite: false refuses an external_id another file holds (409), and frees it once that file is deleted', async () => {
      const store = await c.stores.create({ name: 'strict' });
      const a = await c.files.create({ file: await toFile(Buffer.from('a'), 'a.txt', { type: 'text/plain' }) });
      const b = await c.files.create({ file: await toFile(Buffer.from('b'), 'b.txt', { type: 'text/plain' }) });
      await c.stores.files.create(store.id, { file_id: a.id, external_id: 'x', overwrite: false });
      await expect(
        c.stores.files.create(store.id, { file_id: b.id, external_id: 'x', overwrite: false }),
      ).rejects.toMatchObject({ status: 409 });
      await c.stores.files.delete(a.id, { store_identifier: store.id });
      const added = await c.stores.files.create(store.id, { file_id: b.id, external_id: 'x', overwrite: false });
      expect(added.id).toBe(b.id);
    });
  });

  describe('a refused or failed upsert of an external_id changes nothing', () => {
    let t: TestLarder;
    let c: Mixedbread;
    beforeAll(async () => {
      t = await startTestLarder();
      c = t.client((await t.newOrganization('strict-watcher')).apiKey);
    });
    afterAll(async () => t?.close());

    // the read models have applied every event stored so far (a refused request waits for nothing)
    const caughtUp = async () =>
      t.larder.infra.runner.waitFor(['stores'], await t.larder.infra.eventStore.headPosition());
    const completed = (store: string, id: string) =>
      eventually(
        () => c.stores.files.retrieve(id, { store_identifier: store }),
        (f) => f.status === 'completed',
        120_000,
      );

    it('twenty parallel uploads with one external_id and overwrite: false: one is answered 201, the others 409, and the answered file stays', async () => {
      const store = await c.stores.create({ name: 'strict-uploads' });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          c.stores.files.upload({
            storeIdentifier: store.id,
            file: toFile(Buffer.from(`draft ${i}: ${'dolor sit '.repeat(i + 1)}`), 'draft.md', {
              type: 'text/markdown',
            }),
            body: { external_id: 'src/draft.md', overwrite: false },
          } as never),
        ),
      );
      const answered = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : []));
      const refused = results.flatMap((r) =>
        r.status === 'rejected' ? [(r.reason as { status?: number }).status] : [],
      );
      expect(answered).toHaveLength(1);
      expect(refused).toEqual(Array.from({ length: 19 }, () => 409));
      await settled(c, store.id);
      for (const id of answered)
        expect((await c.stores.files.retrieve(id, { store_identifier: store.id })).external_id).toBe('src/draft.md');
      const files = (await c.stores.files.list(store.id, { limit: 100 })).data;
      expect(files.map((f) => f.id)).toEqual(answered);
    });

    it('re-attaching a file with an external_id another file holds (overwrite: false) is a 409 and the file stays as it was', async () => {
      const store = await c.stores.create({ name: 'reattach' });
      const x = await c.files.create({
        file: await toFile(Buffer.from(`the x file ${'alpha '.repeat(30)}`), 'x.txt', { type: 'text/plain' }),
      });
      const y = await c.files.create({
        file: await toFile(Buffer.from(`the y file ${'beta '.repeat(30)}`), 'y.txt', { type: 'text/plain' }),
      });
      await c.stores.files.create(store.id, { file_id: x.id, external_id: 'e1' });
      await c.stores.files.create(store.id, { file_id: y.id, external_id: 'e2' });
      await completed(store.id, x.id);
      await completed(store.id, y.id);
      await expect(
        c.stores.files.create(store.id, { file_id: x.id, external_id: 'e2', overwrite: false }),
      ).rejects.toMatchObject({ status: 409 });
      await caughtUp();
      expect(await c.stores.files.retrieve(x.id, { store_identifier: store.id })).toMatchObject({
        id: x.id,
        external_id: 'e1',
        status: 'completed',
      });
      expect(await c.stores.files.retrieve(y.id, { store_identifier: store.id })).toMatchObject({
        id: y.id,
        external_id: 'e2',
        status: 'completed',
      });
    });

    it('a re-attach whose add fails (500) leaves the file, and the external_id with the file that held it', async () => {
      const store = await c.stores.create({ name: 'reattach-failing' });
      const x = await c.files.create({
        file: await toFile(Buffer.from(`the x file ${'gamma '.repeat(30)}`), 'x.txt', { type: 'text/plain' }),
      });
      const y = await c.files.create({
        file: await toFile(Buffer.from(`the y file ${'delta '.repeat(30)}`), 'y.txt', { type: 'text/plain' }),
      });
      const z = await c.files.create({
        file: await toFile(Buffer.from(`the z file ${'omega '.repeat(30)}`), 'z.txt', { type: 'text/plain' }),
      });
      await c.stores.files.create(store.id, { file_id: x.id, external_id: 'e1' });
      await c.stores.files.create(store.id, { file_id: y.id, external_id: 'e2' });
      await completed(store.id, x.id);
      await completed(store.id, y.id);
      // the event store refuses the next store-file append that adds a file (a database that fails mid-request)
      const events = t.larder.infra.eventStore;
      const append = events.appendToStream.bind(events);
      let failed = 0;
      events.appendToStream = async (stream, evs, options) => {
        if (!failed && stream.startsWith('store_file-') && evs.some((e) => e.type === 'StoreFileAdded')) {
          failed++;
          throw new Error('the database went away');
        }
        return append(stream, evs, options);
      };
      try {
        await expect(
          c.stores.files.create(store.id, { file_id: x.id, external_id: 'e2', overwrite: true }),
        ).rejects.toMatchObject({ status: 500 });
      } finally {
        events.appendToStream = append;
      }
      expect(failed).toBe(1);
      await caughtUp();
      expect(await c.stores.files.retrieve(x.id, { store_identifier: store.id })).toMatchObject({
        id: x.id,
        external_id: 'e1',
        status: 'completed',
      });
      expect(await c.stores.files.retrieve(y.id, { store_identifier: store.id })).toMatchObject({
        id: y.id,
        external_id: 'e2',
        status: 'completed',
      });
      // the claim went back to y: another file is still refused it without overwrite
      await expect(
        c.stores.files.create(store.id, { file_id: z.id, external_id: 'e2', overwrite: false }),
      ).rejects.toMatchObject({ status: 409 });
    });

    // a claim of `externalId` as a claimant appends it, for a file whose add never follows (or not yet)
    const claimFor = async (
      storeId: string,
      externalId: string,
      o: { fileId: string; previousFileId: string | null; overwrite: boolean; at: Date },
    ) => {
      const { organizationId } = (await t.larder.infra.eventStore.readStream(`store-${storeId}`))[0].data as {
        organizationId: string;
      };
      await t.larder.infra.eventStore.appendToStream(storeExternalIdStream(storeId, externalId), [
        {
          type: 'StoreExternalIdClaimed',
          data: {
            organizationId,
            storeId,
            externalId,
            fileId: o.fileId,
            previousFileId: o.previousFileId,
            fileRevision: -1,
            overwrite: o.overwrite,
            at: o.at.toISOString(),
          },
          metadata: { orgId: organizationId, actor: 'test' },
        },
      ]);
    };
    const upload = (store: string, text: string, externalId: string) =>
      c.stores.files.upload({
        storeIdentifier: store,
        file: toFile(Buffer.from(text), 'claimed.md', { type: 'text/markdown' }),
        body: { external_id: externalId, overwrite: false },
      } as never);

    it('a claimant that died between its claim and its add keeps the external_id from overwrite: false only for a while', async () => {
      const store = await c.stores.create({ name: 'died-claiming' });
      const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
      await claimFor(store.id, 'recent', {
        fileId: randomUUID(),
        previousFileId: null,
        overwrite: false,
        at: minutesAgo(1),
      });
      await expect(upload(store.id, 'recent one', 'recent')).rejects.toMatchObject({ status: 409 });
      await claimFor(store.id, 'long-ago', {
        fileId: randomUUID(),
        previousFileId: null,
        overwrite: false,
        at: minutesAgo(6),
      });
      const f = await upload(store.id, 'long ago one', 'long-ago');
      expect((await c.stores.files.retrieve(f.id, { store_identifier: store.id })).external_id).toBe('long-ago');
    });

    it('an attach that stalled between its claim and its add until the id was given to another file is a 409 and leaves nothing', async () => {
      const store = await c.stores.create({ name: 'stalled-claimant' });
      const events = t.larder.infra.eventStore;
      const append = events.appendToStream.bind(events);
      let tookOver = 0;
      // just before the stalled attach's add: another file takes the id, its claim counted abandoned
      events.appendToStream = async (stream, evs, options) => {
        const add = evs.find((e) => e.type === 'StoreFileAdded' && e.data.externalId === 'stalled');
        if (add && !tookOver++)
          await claimFor(store.id, 'stalled', {
            fileId: randomUUID(),
            previousFileId: add.data.fileId as string,
            overwrite: false,
            at: new Date(),
          });
        return append(stream, evs, options);
      };
      try {
        await expect(upload(store.id, 'stalled one', 'stalled')).rejects.toMatchObject({ status: 409 });
      } finally {
        events.appendToStream = append;
      }
      expect(tookOver).toBe(1);
      await caughtUp();
      expect((await c.stores.files.list(store.id, {})).data).toEqual([]);
    });
  });

  describe('a server whose read models are always late (LARDER_CONSISTENCY_TIMEOUT_MS=1)', () => {
    let t: TestLarder;
    let c: Mixedbread;
    let baseURL: string;
    let key: string;
    beforeAll(async () => {
      // it starts: the root key is created although its read model never answers within 1 ms
      t = await startTestLarder({ embedded: true, env: { LARDER_CONSISTENCY_TIMEOUT_MS: '1' } });
      key = (await t.newOrganization('late')).apiKey;
      c = t.client(key);
      baseURL = t.baseURL;
    });
    afterAll(async () => t?.close());

    it('every write answers success from its decided state; the data appears in reads shortly after', async () => {
      const store = await c.stores.create({ name: 'late-store', description: 'created while the read model lags' });
      expect(store).toMatchObject({
        name: 'late-store',
        description: 'created while the read model lags',
        object: 'store',
      });
      // the name stays claimed: a second create is a 409, not a duplicate that would poison the projection
      await expect(c.stores.create({ name: 'late-store' })).rejects.toMatchObject({ status: 409 });
      const file = await c.files.create({
        file: await toFile(Buffer.from('content that must survive'), 'kept.txt', { type: 'text/plain' }),
      });
      expect(file).toMatchObject({ filename: 'kept.txt', bytes: 25 });
      const sf = await c.stores.files.create(store.id, { file_id: file.id, metadata: { k: 1 } });
      expect(sf).toMatchObject({ id: file.id, store_id: store.id, metadata: { k: 1 } });
      const renamed = await c.stores.update(store.id, { name: 'late-store-2' });
      expect(renamed.name).toBe('late-store-2');
      const k = await c.apiKeys.create({ name: 'late key' });
      expect(k.value).toEqual(expect.any(String));

      // the projections keep advancing: every write shows up
      await eventually(
        () => c.stores.retrieve('late-store-2'),
        (s) => s.id === store.id,
      );
      await eventually(
        () => c.files.retrieve(file.id),
        (f) => f.id === file.id,
      );
      const content = await eventually(
        () => c.files.content(file.id).then((r) => r.text()),
        (x) => x.length > 0,
      );
      expect(content).toBe('content that must survive');
      await eventually(
        () => c.apiKeys.retrieve(k.id),
        (x) => x.id === k.id,
      );
      await eventually(
        () => c.stores.files.retrieve(file.id, { store_identifier: store.id }),
        (f) => f.status === 'completed',
      );
      // and later store writes still succeed
      const second = await c.stores.create({ name: 'late-store' });
      expect(second.name).toBe('late-store');
      await eventually(
        () => c.stores.retrieve('late-store'),
        (s) => s.id === second.id,
      );
    });

    it('says that reads may lag (Larder-Read-Lag) instead of answering 503', async () => {
      const res = await fetch(`${baseURL}/v1/stores`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'lag-header' }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('larder-read-lag')).toMatch(/stores/);
    });
  });
});

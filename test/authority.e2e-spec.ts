import Mixedbread, { toFile } from '@mixedbread/sdk';
import { CommandBus } from '@nestjs/cqrs';
import { CreateApiKeyCommand } from '@larder/api-keys';
import { storeFileStream } from '@larder/stores/streams';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

type Scope = Array<{
  method: 'read' | 'write' | 'delete' | 'list' | 'create' | 'search';
  resource_type?: string | null;
  resource_id?: string | null;
}>;
interface ErrorBody {
  error: { message: string; code: number; type: string };
  message: string;
}

/**
 * Authority in the stores context, one spec per row of the scope table in docs/api.md:
 * what a key's scope grants is exactly what it can do and see, checked against resolved store ids,
 * and admin keys act in their own organization unless they are the operator's.
 */
describe('authority that holds, in the stores context', () => {
  let t: TestLarder;
  let orgId: string;
  let ownerKey: string;
  let owner: Mixedbread;
  let shared: { id: string; fileId: string };
  let secret: { id: string; fileId: string };
  let orgFileId: string;

  const raw = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${t.baseURL}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  const post = (key: string, path: string, body: unknown) =>
    raw(key, path, { method: 'POST', body: JSON.stringify(body) });
  const keyWith = async (name: string, scope: Scope) =>
    (await owner.apiKeys.create({ name, scope: scope as never })).value;

  /** A 403 in the contract's error shape. */
  async function expectForbidden(res: Response): Promise<ErrorBody> {
    expect(res.status).toBe(403);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({
      error: { code: 403, type: 'forbidden', message: expect.any(String) },
      message: expect.any(String),
    });
    return body;
  }

  /** Waits for a copy to finish on both sides (a store being copied refuses file changes). */
  async function copied(targetId: string, sourceId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (const id of [targetId, sourceId]) {
      while ((await owner.stores.retrieve(id)).copy_state) {
        if (Date.now() > deadline) throw new Error(`copy into ${targetId} did not finish`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function storeWithFile(
    name: string,
    description: string,
    text: string,
  ): Promise<{ id: string; fileId: string }> {
    const s = await owner.stores.create({ name, description, metadata: { owner: name } });
    const f = await owner.stores.files.uploadAndPoll({
      storeIdentifier: s.id,
      file: await toFile(Buffer.from(text), `${name}.txt`, { type: 'text/plain' }),
      pollIntervalMs: 100,
    });
    expect(f.status).toBe('completed');
    return { id: s.id, fileId: f.id };
  }

  beforeAll(async () => {
    t = await startTestLarder();
    ({ organizationId: orgId, apiKey: ownerKey } = await t.newOrganization('authority'));
    owner = t.client(ownerKey);
    shared = await storeWithFile('shared', 'for everyone', 'Pickled walnuts keep for a year.');
    secret = await storeWithFile('secret', 'classified recipes', 'The secret sauce is smoked plum and miso.');
    orgFileId = (
      await owner.files.create({
        file: await toFile(Buffer.from('Salary list: confidential.'), 'salaries.txt', { type: 'text/plain' }),
      })
    ).id;
  });
  afterAll(async () => t?.close());

  describe('list never grants content', () => {
    it('a list-only key lists store files without a content_url and cannot download them', async () => {
      const key = await keyWith('list only', [{ method: 'list', resource_type: 'store' }]);
      const listed = await post(key, `/v1/stores/${shared.id}/files/list`, {});
      expect(listed.status).toBe(200);
      const page = (await listed.json()) as { data: Array<{ id: string; content_url: unknown }> };
      expect(page.data.map((f) => f.id)).toEqual([shared.fileId]);
      expect(page.data[0].content_url).toBeNull();
      // the deprecated GET listing and the official client alike
      const deprecated = (await (await raw(key, `/v1/stores/shared/files`)).json()) as {
        data: Array<{ content_url: unknown }>;
      };
      expect(deprecated.data.map((f) => f.content_url)).toEqual([null]);
      const viaSdk = await t.client(key).stores.files.list(shared.id, {});
      expect(viaSdk.data.map((f) => f.content_url)).toEqual([null]);
      expect(JSON.stringify(viaSdk)).not.toMatch(/signature=/);
      // nor by any other way: the store file, the file's own content
      await expectForbidden(await raw(key, `/v1/stores/${shared.id}/files/${shared.fileId}`));
      await expectForbidden(await raw(key, `/v1/files/${shared.fileId}/content`));
      expect((await fetch(`${t.baseURL}/v1/stores/${shared.id}/files/${shared.fileId}/content`)).status).toBe(404);
    });

    it('a key with read on the store gets a content_url that downloads the bytes', async () => {
      const key = await keyWith('reader', [
        { method: 'list', resource_type: 'store' },
        { method: 'read', resource_type: 'store', resource_id: 'shared' },
      ]);
      const page = await t.client(key).stores.files.list('shared', {});
      expect(page.data[0].content_url).toMatch(/signature=/);
      expect(await (await fetch(page.data[0].content_url)).text()).toBe('Pickled walnuts keep for a year.');
      // read on one store does not put content into another store's listing
      const other = await t.client(key).stores.files.list(secret.id, {});
      expect(other.data.map((f) => f.content_url)).toEqual([null]);
    });
  });

  describe('copy needs read on the source and create', () => {
    it('a create-only key cannot copy a store it cannot read (403), and learns nothing of it', async () => {
      const key = await keyWith('create only', [{ method: 'create', resource_type: 'store' }]);
      const body = await expectForbidden(await post(key, `/v1/stores/${secret.id}/copy`, { name: 'loot' }));
      expect(JSON.stringify(body)).not.toMatch(/classified|owner/);
      await expectForbidden(await post(key, `/v1/stores/secret/copy`, { name: 'loot' }));
      await expect(t.client(key).stores.copy('secret', { name: 'loot' })).rejects.toMatchObject({ status: 403 });
      await expect(owner.stores.retrieve('loot')).rejects.toMatchObject({ status: 404 }); // nothing was created
      // an unknown source is refused the same way (no existence probe)
      await expectForbidden(await post(key, `/v1/stores/no-such-store/copy`, { name: 'loot' }));
    });

    it('a key with read on the source and create copies it', async () => {
      const key = await keyWith('copier', [
        { method: 'create', resource_type: 'store' },
        { method: 'read', resource_type: 'store', resource_id: 'shared' },
      ]);
      const res = await post(key, `/v1/stores/shared/copy`, { name: 'shared-copy' });
      expect(res.status).toBe(201);
      const target = (await res.json()) as { id: string };
      expect(target).toMatchObject({ name: 'shared-copy', description: 'for everyone', object: 'store' });
      await copied(target.id, shared.id);
      await expectForbidden(await post(key, `/v1/stores/secret/copy`, { name: 'secret-copy' }));
    });

    it('read pinned by name plus create cannot copy a secret store into the pinned name and read it', async () => {
      // a store scope must name an existing store: it is pinned to that store's id at creation
      await expect(
        keyWith('pinned', [{ method: 'read', resource_type: 'store', resource_id: 'pinned-name' }]),
      ).rejects.toMatchObject({ status: 422 });
      const original = await owner.stores.create({ name: 'pinned-name', description: 'public notes' });
      const k = await keyWith('pinned', [
        { method: 'read', resource_type: 'store', resource_id: 'pinned-name' },
        { method: 'create', resource_type: 'store' },
      ]);
      const scoped = t.client(k);
      expect((await scoped.stores.retrieve('pinned-name')).id).toBe(original.id);
      // the name is freed (a rename); the key tries to copy the secret store into it
      await owner.stores.update(original.id, { name: 'pinned-name-old' });
      await expectForbidden(await post(k, `/v1/stores/${secret.id}/copy`, { name: 'pinned-name' }));
      await expect(owner.stores.retrieve('pinned-name')).rejects.toMatchObject({ status: 404 });
      // even when another key puts the secret store's copy there, the pin still names the original id
      const copy = await owner.stores.copy(secret.id, { name: 'pinned-name' });
      await copied(copy.id, secret.id);
      await expectForbidden(await raw(k, `/v1/stores/pinned-name`));
      await expectForbidden(await raw(k, `/v1/stores/${copy.id}`));
      await expectForbidden(await raw(k, `/v1/stores/pinned-name/files/${secret.fileId}`));
      // and the store the key was given stays readable under its new name
      expect((await scoped.stores.retrieve('pinned-name-old')).id).toBe(original.id);
    });
  });

  describe('attaching a file needs read on it', () => {
    it('a store-scoped key cannot attach an organization file it cannot read, nor read it through the store', async () => {
      const key = await keyWith('store scoped', [
        { method: 'read', resource_type: 'store', resource_id: 'shared' },
        { method: 'write', resource_type: 'store', resource_id: 'shared' },
        { method: 'list', resource_type: 'store', resource_id: 'shared' },
      ]);
      const body = await expectForbidden(await post(key, `/v1/stores/shared/files`, { file_id: orgFileId }));
      expect(body.error.message).toMatch(/read on file/);
      await expect(t.client(key).stores.files.create('shared', { file_id: orgFileId })).rejects.toMatchObject({
        status: 403,
      });
      expect((await raw(key, `/v1/stores/shared/files/${orgFileId}`)).status).toBe(404); // not in the store
      const listed = await owner.stores.files.list('shared', {});
      expect(listed.data.map((f) => f.id)).not.toContain(orgFileId); // nothing was attached
      await expectForbidden(await raw(key, `/v1/files/${orgFileId}/content`));
    });

    it('nor through file_ids when it creates a store', async () => {
      const key = await keyWith('store creator', [
        { method: 'create', resource_type: 'store' },
        { method: 'read', resource_type: 'store' },
      ]);
      await expectForbidden(await post(key, `/v1/stores`, { name: 'grab-bag', file_ids: [orgFileId] }));
      await expect(owner.stores.retrieve('grab-bag')).rejects.toMatchObject({ status: 404 });
    });

    // key scopes name `resource_type` `store` or `completions`, or none: an entry without a type pinned to a file id is read on that file
    it('a key with read on that file (by id, or on every file) attaches it; read on another file or on stores does not', async () => {
      const store = [{ method: 'write', resource_type: 'store', resource_id: 'shared' }] as const;
      const byId = await keyWith('file by id', [...store, { method: 'read', resource_id: orgFileId }]);
      expect((await post(byId, `/v1/stores/shared/files`, { file_id: orgFileId })).status).toBe(201);
      await owner.stores.files.delete(orgFileId, { store_identifier: 'shared' });
      const anyFile = await keyWith('any file', [...store, { method: 'read' }]);
      expect((await post(anyFile, `/v1/stores/shared/files`, { file_id: orgFileId })).status).toBe(201);
      await owner.stores.files.delete(orgFileId, { store_identifier: 'shared' });
      const otherFile = await keyWith('other file', [
        ...store,
        { method: 'read', resource_id: shared.fileId },
        { method: 'read', resource_type: 'store' },
      ]);
      await expectForbidden(await post(otherFile, `/v1/stores/shared/files`, { file_id: orgFileId }));
    });

    it('a file whose content the key wrote itself needs no file scope: the store upload route and the official client’s upload helper', async () => {
      const writeOnly = await keyWith('writer', [{ method: 'write', resource_type: 'store', resource_id: 'shared' }]);
      const form = new FormData();
      form.append('file', new Blob(['my own note'], { type: 'text/plain' }), 'own.txt');
      const res = await fetch(`${t.baseURL}/v1/stores/shared/files/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writeOnly}` },
        body: form,
      });
      expect(res.status).toBe(201);
      // write without read: the answer carries no content
      expect(await res.json()).toMatchObject({ store_id: shared.id, filename: 'own.txt', content_url: null });

      // `stores.files.upload` = POST /v1/files, then POST …/files with the new file's id
      const watcher = await keyWith('watcher', [
        { method: 'create' },
        { method: 'write', resource_type: 'store', resource_id: 'shared' },
      ]);
      const client = t.client(watcher);
      const mine = await client.stores.files.upload({
        storeIdentifier: 'shared',
        file: await toFile(Buffer.from('watched file'), 'watched.txt', { type: 'text/plain' }),
      });
      expect(mine).toMatchObject({ store_id: shared.id, filename: 'watched.txt', content_url: null });
      await expectForbidden(await post(watcher, `/v1/stores/shared/files`, { file_id: orgFileId }));
      // once another key has replaced that file's content, it is no longer the watcher's to attach
      const replace = new FormData();
      replace.append('file', new Blob(['replaced by the owner: confidential'], { type: 'text/plain' }), 'watched.txt');
      expect(
        (
          await fetch(`${t.baseURL}/v1/files/${mine.id}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ownerKey}` },
            body: replace,
          })
        ).status,
      ).toBe(200);
      await expect(client.stores.files.create('shared', { file_id: mine.id })).rejects.toMatchObject({ status: 403 });
    });
  });

  describe('admin keys act in their own organization; the operator (a root admin key) in any', () => {
    let other: { organizationId: string; apiKey: string };
    let otherAdmin: string;

    beforeAll(async () => {
      other = await t.newOrganization('another tenant');
      const commands = t.larder.app.get(CommandBus);
      otherAdmin = (
        await commands.execute(
          new CreateApiKeyCommand(other.organizationId, 'tenant admin', null, null, { admin: true }),
        )
      ).value as string;
    });

    const reingestRequests = async () =>
      (await t.larder.infra.eventStore.readStream(storeFileStream(secret.id, secret.fileId))).filter(
        (e) => e.type === 'StoreFileReingestionRequested',
      ).length;

    it('a non-root admin key gets 403 on another organization’s reingest, and nothing is queued or billed there', async () => {
      const before = await reingestRequests();
      await expectForbidden(await post(otherAdmin, `/v1/admin/stores/${orgId}/secret/reingest?billable=true`, {}));
      await expectForbidden(
        await post(otherAdmin, `/v1/admin/stores/${orgId.toUpperCase()}/${secret.id}/reingest?billable=true`, {}),
      );
      expect(await reingestRequests()).toBe(before);
      expect((await owner.stores.retrieve('secret')).file_counts).toMatchObject({
        completed: 1,
        pending: 0,
        in_progress: 0,
      });
    });

    it('the same key re-ingests in its own organization', async () => {
      const c = t.client(other.apiKey);
      const s = await c.stores.create({ name: 'own-store' });
      await c.stores.files.uploadAndPoll({
        storeIdentifier: s.id,
        file: await toFile(Buffer.from('Our own notes.'), 'own.txt', { type: 'text/plain' }),
        pollIntervalMs: 100,
      });
      const res = await post(
        otherAdmin,
        `/v1/admin/stores/${other.organizationId}/own-store/reingest?billable=false`,
        {},
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: '1 store file queued for re-ingestion', jobs_created: 1 });
    });

    it('the operator (the root organization’s admin key) re-ingests in another organization', async () => {
      const before = await reingestRequests();
      const res = await post(t.rootKey, `/v1/admin/stores/${orgId}/secret/reingest?billable=false`, {});
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: '1 store file queued for re-ingestion', jobs_created: 1 });
      expect(await reingestRequests()).toBe(before + 1);
    });
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any */
import OpenAI from 'openai';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { LIMITS } from '@larder/kernel';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

const text = (body: string, name: string) => toFile(Buffer.from(body), name, { type: 'text/plain' });

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

describe('What the official clients expect of stores, store files, search and files', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;

  beforeAll(async () => {
    t = await startTestLarder();
    key = (await t.newOrganization('contract')).apiKey;
    c = t.client(key);
  });
  afterAll(async () => t?.close());

  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`${t.baseURL}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  it('creates a store with file_ids: the answer is the store, with the files attached', async () => {
    for (let i = 0; i < 4; i++) {
      const a = await c.files.create({ file: await text(`Jar ${i}: apricot jam sets at 105 °C.`, `jar-${i}.txt`) });
      const b = await c.files.create({ file: await text(`Jar ${i}: plum jam wants less sugar.`, `plum-${i}.txt`) });
      const s = await c.stores.create({ name: `with-files-${i}`, file_ids: [a.id, b.id] });
      expect(s).toMatchObject({ name: `with-files-${i}`, object: 'store' });
      expect(s.file_counts!.total).toBe(2);
      const attached = (await c.stores.files.list(s.id, {})).data.map((f) => f.id).sort();
      expect(attached).toEqual([a.id, b.id].sort());
    }
  });

  it('retrieves, updates and deletes a store file by an external id with slashes, encoded or not', async () => {
    const store = (await c.stores.create({ name: 'slashes' })).id;
    const f = await c.files.create({ file: await text('Quince paste needs hours of stirring.', 'a.md') });
    await c.stores.files.create(store, { file_id: f.id, external_id: 'docs/a.md' });

    const plain = await raw(`/v1/stores/${store}/files/docs/a.md`);
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as any).id).toBe(f.id);
    // the SDK encodes the slash
    expect((await c.stores.files.retrieve('docs/a.md', { store_identifier: store })).id).toBe(f.id);
    const patched = await raw(`/v1/stores/${store}/files/docs/a.md`, {
      method: 'PATCH',
      body: JSON.stringify({ metadata: { shelf: 'top' } }),
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as any).metadata).toEqual({ shelf: 'top' });
    expect(
      (await c.stores.files.update('docs/a.md', { store_identifier: store, metadata: { shelf: 'low' } })).metadata,
    ).toEqual({ shelf: 'low' });
    expect((await raw(`/v1/stores/${store}/files/docs/b.md`)).status).toBe(404);
    const deleted = await raw(`/v1/stores/${store}/files/docs/a.md`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ id: f.id, deleted: true });
    expect((await raw(`/v1/stores/${store}/files/docs%2Fa.md`)).status).toBe(404);
  });

  it('keeps metadata of stores and store files that is any JSON value, within the limits', async () => {
    for (const metadata of ['a note', 42, [1, 'two', { three: 3 }], true, null, { team: 'cooks' }]) {
      const s = await c.stores.create({
        name: `meta-${typeof metadata}-${Array.isArray(metadata)}-${metadata === null}`,
        metadata,
      });
      expect(s.metadata).toEqual(metadata);
      expect((await c.stores.retrieve(s.id)).metadata).toEqual(metadata);
    }
    const s = await c.stores.create({ name: 'meta-updates', metadata: { a: 1 } });
    expect((await c.stores.update(s.id, { metadata: ['x', 'y'] })).metadata).toEqual(['x', 'y']);
    expect((await c.stores.update(s.id, { metadata: 'plain' })).metadata).toBe('plain');

    const f = await c.files.create({ file: await text('Damson cheese keeps for years.', 'damson.txt') });
    const sf = await c.stores.files.create(s.id, { file_id: f.id, metadata: ['pantry', 3] });
    expect(sf.metadata).toEqual(['pantry', 3]);
    expect((await c.stores.files.update(f.id, { store_identifier: s.id, metadata: 7.5 as any })).metadata).toBe(7.5);
    expect((await c.stores.files.retrieve(f.id, { store_identifier: s.id })).metadata).toBe(7.5);
    await settle(c, s.id);
    // a search over files whose metadata is no object answers, filtered or not
    expect(
      (
        await c.stores.search({
          query: 'damson',
          store_identifiers: [s.id],
          filters: { key: 'shelf', operator: 'eq', value: 'top' },
        })
      ).data,
    ).toEqual([]);
    expect((await c.stores.search({ query: 'damson', store_identifiers: [s.id] })).data[0]).toMatchObject({
      metadata: 7.5,
    });

    // the limits still hold, for any kind of value
    const long = await raw('/v1/stores', {
      method: 'POST',
      body: JSON.stringify({ name: 'meta-long', metadata: 'x'.repeat(LIMITS.metadataStringChars + 1) }),
    });
    expect(long.status).toBe(422);
    expect(((await long.json()) as any).detail[0].loc).toEqual(['body', 'metadata']);
    const big = await raw(`/v1/stores/${s.id}/files/${f.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ metadata: Array.from({ length: 8 }, () => 'y'.repeat(LIMITS.metadataBytes / 8)) }),
    });
    expect(big.status).toBe(422);
    expect((await c.stores.files.retrieve(f.id, { store_identifier: s.id })).metadata).toBe(7.5);
  });

  it('rerank.top_k keeps that many results', async () => {
    const store = (await c.stores.create({ name: 'rerank-top-k' })).id;
    for (const fruit of ['apricot', 'plum', 'quince', 'cherry']) {
      const f = await c.files.create({
        file: await text(
          `How to make ${fruit} jam: weigh the fruit, add sugar, boil to the setting point.`,
          `${fruit}.txt`,
        ),
      });
      await c.stores.files.create(store, { file_id: f.id });
    }
    await settle(c, store);
    const q = { query: 'how to make jam', store_identifiers: [store], top_k: 10 };
    expect((await c.stores.search(q)).data.length).toBe(4);
    expect((await c.stores.search({ ...q, search_options: { rerank: { top_k: 1 } } })).data.length).toBe(1);
    expect((await c.stores.search({ ...q, search_options: { rerank: { top_k: 3 } } })).data.length).toBe(3);
    expect((await c.stores.search({ ...q, top_k: 2, search_options: { rerank: { top_k: 3 } } })).data.length).toBe(2);
  });

  it("lists files in Mixedbread's and OpenAI's shapes at once: both clients page through all of them", async () => {
    const org = await t.newOrganization('file pages');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await t.client(org.apiKey).files.create({ file: await text(`page ${i}`, `page-${i}.txt`) })).id);
    const first = (await (
      await fetch(`${t.baseURL}/v1/files?limit=2`, { headers: { authorization: `Bearer ${org.apiKey}` } })
    ).json()) as any;
    expect(first).toMatchObject({
      object: 'list',
      has_more: true,
      first_id: ids[4],
      last_id: ids[3],
      pagination: { has_more: true },
    });

    const openai = new OpenAI({ apiKey: org.apiKey, baseURL: `${t.baseURL}/v1`, maxRetries: 0 });
    const viaOpenAi: string[] = [];
    for await (const f of openai.files.list({ limit: 2 })) viaOpenAi.push(f.id);
    expect(viaOpenAi).toEqual([...ids].reverse());
    const viaMixedbread: string[] = [];
    for await (const f of t.client(org.apiKey).files.list({ limit: 2 })) viaMixedbread.push(f.id);
    expect(viaMixedbread).toEqual([...ids].reverse());
    // an id `after` or `before` that is no file of the listing: a 422 at that parameter
    const foreign = await fetch(`${t.baseURL}/v1/files?after=${ids[0].replace(/^./, ids[0][0] === '0' ? '1' : '0')}`, {
      headers: { authorization: `Bearer ${org.apiKey}` },
    });
    expect(foreign.status).toBe(422);
    expect(((await foreign.json()) as any).detail[0].loc).toEqual(['query', 'after']);
    const back = (await (
      await fetch(`${t.baseURL}/v1/files?limit=2&before=${ids[1]}`, {
        headers: { authorization: `Bearer ${org.apiKey}` },
      })
    ).json()) as any;
    expect(back.data.map((f: any) => f.id)).toEqual([ids[3], ids[2]]);
  });
});

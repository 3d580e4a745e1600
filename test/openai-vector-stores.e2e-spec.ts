/* eslint-disable @typescript-eslint/no-explicit-any */
import OpenAI, { toFile } from 'openai';
import Mixedbread from '@mixedbread/sdk';
import { ChatCompletionsDouble, startChatCompletionsDouble } from '@larder/ai/testing/chat-completions-double';
import { estimateTokens } from '@larder/ingestion';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

const DOCS = {
  starter:
    '# Sourdough starter\n\nFeed the starter with equal weights of rye flour and water every evening. A lively starter doubles within six hours.\n',
  rye: '# Rye loaf\n\nA dense rye loaf needs a long proof and a very hot oven with steam for the first fifteen minutes.\n',
  kimchi:
    '# Kimchi\n\nSalt napa cabbage for two hours, rinse it, then rub in a paste of chili flakes, garlic, ginger and fish sauce.\n',
  miso: '# Miso soup\n\nDissolve white miso in dashi just below the boil and add silken tofu and wakame.\n',
};
const md = (name: keyof typeof DOCS) => toFile(Buffer.from(DOCS[name]), `${name}.md`, { type: 'text/markdown' });

describe('OpenAI vector stores over the same stores, driven by the openai client unchanged', () => {
  let t: TestLarder;
  let double: ChatCompletionsDouble;
  let key: string;
  let openai: OpenAI;
  let mxb: Mixedbread;
  let bakery: OpenAI.VectorStores.VectorStore;

  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`${t.baseURL}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });

  beforeAll(async () => {
    double = await startChatCompletionsDouble({ apiKey: 'sk-rewrite' });
    t = await startTestLarder({
      env: {
        LARDER_LLM_URL: double.url,
        LARDER_LLM_MODEL: 'rewriter',
        LARDER_LLM_API_KEY: 'sk-rewrite',
        LARDER_LLM_MAX_RETRIES: '0',
      },
    });
    key = (await t.newOrganization('openai-vector-stores')).apiKey;
    openai = new OpenAI({ apiKey: key, baseURL: `${t.baseURL}/v1`, maxRetries: 0, timeout: 30_000 });
    mxb = t.client(key);
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('creates two stores with one free-text name; each is one store of the Mixedbread API too, with a derived identifier', async () => {
    bakery = await openai.vectorStores.create({
      name: 'Sourdough Notes',
      description: 'the bakery',
      metadata: { team: 'bakers' },
    });
    const twin = await openai.vectorStores.create({ name: 'Sourdough Notes' });
    expect(bakery).toMatchObject({
      object: 'vector_store',
      name: 'Sourdough Notes',
      status: 'completed',
      usage_bytes: 0,
      metadata: { team: 'bakers' },
      file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
      expires_after: null,
      expires_at: null,
    });
    expect(twin.id).not.toBe(bakery.id);
    expect(twin.name).toBe('Sourdough Notes');
    expect(Number.isInteger(bakery.created_at) && Math.abs(bakery.created_at - Date.now() / 1000) < 60).toBe(true);
    expect(Number.isInteger(bakery.last_active_at)).toBe(true);

    const same = await mxb.stores.retrieve(bakery.id);
    expect(same).toMatchObject({
      id: bakery.id,
      name: `sourdough-notes-${bakery.id.slice(0, 8)}`,
      description: 'the bakery',
      metadata: { team: 'bakers' },
      object: 'store',
    });
    expect((await mxb.stores.retrieve(twin.id)).name).toBe(`sourdough-notes-${twin.id.slice(0, 8)}`);
    // a Mixedbread store is a vector store: its name shows as the OpenAI name
    const pantry = await mxb.stores.create({ name: 'pantry', expires_after: { anchor: 'last_active_at', days: 7 } });
    const seen = await openai.vectorStores.retrieve(pantry.id);
    expect(seen).toMatchObject({ id: pantry.id, name: 'pantry', expires_after: { anchor: 'last_active_at', days: 7 } });
    expect(seen.expires_at).toBe(seen.last_active_at! + 7 * 86_400);
  });

  it('renames by POST (the display name only) and pages past the first page both ways', async () => {
    const renamed = await openai.vectorStores.update(bakery.id, {
      name: 'Bakery Notes',
      metadata: { team: 'bakers', shelf: 'top' },
    });
    expect(renamed).toMatchObject({ id: bakery.id, name: 'Bakery Notes', metadata: { team: 'bakers', shelf: 'top' } });
    expect((await openai.vectorStores.retrieve(bakery.id)).name).toBe('Bakery Notes');
    expect((await mxb.stores.retrieve(bakery.id)).name).toBe(`sourdough-notes-${bakery.id.slice(0, 8)}`); // the identifier stays

    for (const n of [1, 2]) await openai.vectorStores.create({ name: `Extra ${n}` });
    const all: string[] = [];
    for await (const s of openai.vectorStores.list({ limit: 2 })) all.push(s.name);
    expect(all).toEqual(['Extra 2', 'Extra 1', 'pantry', 'Sourdough Notes', 'Bakery Notes']); // newest first, five stores over three pages

    const first = await openai.vectorStores.list({ limit: 2, order: 'asc' });
    expect(first.data.map((s) => s.name)).toEqual(['Bakery Notes', 'Sourdough Notes']);
    expect(first.has_more).toBe(true);
    const body = (await (await raw('/v1/vector_stores?limit=2&order=asc')).json()) as any;
    expect(body).toMatchObject({ object: 'list', first_id: bakery.id, last_id: first.data[1].id, has_more: true });
    const second = await openai.vectorStores.list({ limit: 2, order: 'asc', after: first.data[1].id });
    expect(second.data.map((s) => s.name)).toEqual(['pantry', 'Extra 1']);
    const back = await openai.vectorStores.list({ limit: 2, order: 'asc', before: second.data[0].id });
    expect(back.data.map((s) => s.name)).toEqual(['Bakery Notes', 'Sourdough Notes']);
    await expect(openai.vectorStores.list({ after: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
      status: 422,
    });
  });

  it('uploadAndPoll uploads through /v1/files (purpose echoed) and waits for ingestion; attributes are the store file metadata', async () => {
    const vsf = await openai.vectorStores.files.uploadAndPoll(bakery.id, await md('starter'));
    expect(vsf).toMatchObject({
      object: 'vector_store.file',
      vector_store_id: bakery.id,
      status: 'completed',
      last_error: null,
      usage_bytes: DOCS.starter.length,
      attributes: {},
    });
    const file = await openai.files.retrieve(vsf.id);
    expect(file).toMatchObject({
      id: vsf.id,
      object: 'file',
      purpose: 'assistants',
      status: 'processed',
      bytes: DOCS.starter.length,
      filename: 'starter.md',
    });

    const updated = await openai.vectorStores.files.update(vsf.id, {
      vector_store_id: bakery.id,
      attributes: { cuisine: 'bread', year: 2021, vegan: true },
    });
    expect(updated.attributes).toEqual({ cuisine: 'bread', year: 2021, vegan: true });
    expect((await mxb.stores.files.retrieve(vsf.id, { store_identifier: bakery.id })).metadata).toEqual({
      cuisine: 'bread',
      year: 2021,
      vegan: true,
    });
    await expect(
      openai.vectorStores.files.update(vsf.id, {
        vector_store_id: bakery.id,
        attributes: { nested: { no: 1 } } as any,
      }),
    ).rejects.toMatchObject({ status: 422 });

    const store = await openai.vectorStores.retrieve(bakery.id);
    expect(store.file_counts).toEqual({ in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 });
    expect(store.usage_bytes).toBe(DOCS.starter.length);
  });

  it('/v1/files takes purpose before or after the file part, refuses an unknown one and stores nothing then', async () => {
    const upload = async (parts: Array<[string, string | Blob, string?]>) => {
      const form = new FormData();
      for (const [name, value, filename] of parts) {
        if (typeof value === 'string') form.append(name, value);
        else form.append(name, value, filename);
      }
      return fetch(`${t.baseURL}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
    };
    const blob = new Blob(['# Jam\n\nBoil and jar.\n'], { type: 'text/markdown' });
    const first = await upload([
      ['purpose', 'vision'],
      ['file', blob, 'jam.md'],
    ]);
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({
      object: 'file',
      purpose: 'vision',
      status: 'processed',
      filename: 'jam.md',
    });
    const before = (await mxb.files.list({ limit: 100 })).data.length;
    const bad = await upload([
      ['file', blob, 'jam.md'],
      ['purpose', 'wallpaper'],
    ]);
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).detail[0]).toMatchObject({ loc: ['body', 'purpose'], type: 'enum' });
    expect((await mxb.files.list({ limit: 100 })).data.length).toBe(before);
  });

  it('fileBatches.createAndPoll attaches files with their own attributes; the batch lists its files; content is the parsed text', async () => {
    const rye = await openai.files.create({ file: await md('rye'), purpose: 'assistants' });
    const kimchi = await openai.files.create({ file: await md('kimchi'), purpose: 'user_data' });
    expect(kimchi.purpose).toBe('user_data');
    const batch = await openai.vectorStores.fileBatches.createAndPoll(bakery.id, {
      files: [
        { file_id: rye.id, attributes: { cuisine: 'bread', year: 2019 } },
        { file_id: kimchi.id, attributes: { cuisine: 'ferment', year: 2022 } },
      ],
    });
    expect(batch).toMatchObject({
      object: 'vector_store.files_batch',
      vector_store_id: bakery.id,
      status: 'completed',
      file_counts: { in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 },
    });
    const inBatch = await openai.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: bakery.id });
    expect(inBatch.data.map((f) => f.id).sort()).toEqual([rye.id, kimchi.id].sort());
    expect((await openai.vectorStores.fileBatches.retrieve(batch.id, { vector_store_id: bakery.id })).status).toBe(
      'completed',
    );

    const completed = [];
    for await (const f of openai.vectorStores.files.list(bakery.id, { filter: 'completed', limit: 1 }))
      completed.push(f.id);
    expect(completed).toHaveLength(3);
    expect((await openai.vectorStores.files.list(bakery.id, { filter: 'failed' })).data).toEqual([]);

    const content = await openai.vectorStores.files.content(kimchi.id, { vector_store_id: bakery.id });
    expect(content.data).toEqual([{ type: 'text', text: expect.stringContaining('rub in a paste of chili flakes') }]);
    const rawContent = (await (await raw(`/v1/vector_stores/${bakery.id}/files/${kimchi.id}/content`)).json()) as any;
    expect(rawContent).toMatchObject({
      file_id: kimchi.id,
      filename: 'kimchi.md',
      attributes: { cuisine: 'ferment', year: 2022 },
      content: rawContent.data,
    });
  });

  it('searches with attribute filters, and the same store answers through @mixedbread/sdk', async () => {
    const all = await openai.vectorStores.search(bakery.id, {
      query: 'how do I feed a rye starter',
      max_num_results: 10,
    });
    expect(all.data.length).toBeGreaterThanOrEqual(2);
    expect(all.data[0]).toMatchObject({
      filename: 'starter.md',
      attributes: { cuisine: 'bread', year: 2021 },
      content: [{ type: 'text', text: expect.stringContaining('Feed the starter') }],
    });
    expect(all.data[0].score).toBeGreaterThan(0);
    const page = (await (
      await raw(`/v1/vector_stores/${bakery.id}/search`, {
        method: 'POST',
        body: JSON.stringify({ query: ['rye', 'oven'] }),
      })
    ).json()) as any;
    expect(page).toMatchObject({
      object: 'vector_store.search_results.page',
      search_query: ['rye', 'oven'],
      has_more: false,
      next_page: null,
    });

    const older = await openai.vectorStores.search(bakery.id, {
      query: 'rye',
      filters: {
        type: 'and',
        filters: [
          { key: 'cuisine', type: 'eq', value: 'bread' },
          { key: 'year', type: 'lt', value: 2020 },
        ],
      },
    });
    expect(new Set(older.data.map((r) => r.filename))).toEqual(new Set(['rye.md']));
    const either = await openai.vectorStores.search(bakery.id, {
      query: 'cabbage starter loaf',
      filters: {
        type: 'or',
        filters: [
          { key: 'cuisine', type: 'in', value: ['ferment'] },
          { key: 'year', type: 'gte', value: 2021 },
        ],
      },
    });
    expect(new Set(either.data.map((r) => r.filename))).toEqual(new Set(['kimchi.md', 'starter.md']));
    const notBread = await openai.vectorStores.search(bakery.id, {
      query: 'cabbage starter loaf',
      filters: { key: 'cuisine', type: 'ne', value: 'bread' },
    });
    expect(notBread.data.map((r) => r.filename)).toEqual(['kimchi.md']);
    const high = await openai.vectorStores.search(bakery.id, {
      query: 'cabbage',
      ranking_options: { score_threshold: 0.99, ranker: 'none' },
    });
    expect(high.data.every((r) => r.score >= 0.99)).toBe(true);
    await expect(
      openai.vectorStores.search(bakery.id, { query: 'x', filters: { key: 'year', type: 'between' as any, value: 1 } }),
    ).rejects.toMatchObject({ status: 422 });

    const viaMixedbread = await mxb.stores.search({
      query: 'rye',
      store_identifiers: [bakery.id],
      filters: [
        { key: 'cuisine', operator: 'eq', value: 'bread' },
        { key: 'year', operator: 'lt', value: 2020 },
      ],
    });
    expect(new Set(viaMixedbread.data.map((c: any) => c.file_id))).toEqual(new Set(older.data.map((r) => r.file_id)));
    // one store, one activity: every search of both APIs is a search event of the store
    let events: any[] = [];
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      events = ((await (await raw(`/v1/stores/${bakery.id}/events?event_type=search&limit=50`)).json()) as any).data;
      if (events.length >= 7) break;
    }
    expect(events.length).toBe(7);
  });

  it('rewrite_query asks the configured model, searches its rewrite, records it on the search event and meters its tokens', async () => {
    double.reply({ content: 'kimchi cabbage paste', usage: { prompt_tokens: 40, completion_tokens: 4 } });
    const page = await openai.vectorStores.search(bakery.id, {
      query: 'umm what was that spicy korean cabbage thing again??',
      rewrite_query: true,
    });
    expect((page as unknown as { body: { search_query: string[] } }).body.search_query).toEqual([
      'kimchi cabbage paste',
    ]); // the page as sent
    expect(page.data[0].filename).toBe('kimchi.md');
    const asked = double.requests[double.requests.length - 1].body;
    expect(asked.messages[asked.messages.length - 1]).toMatchObject({
      role: 'user',
      content: 'umm what was that spicy korean cabbage thing again??',
    });
    let event: any;
    let billed: any;
    for (
      const deadline = Date.now() + 15_000;
      Date.now() < deadline && !(event && billed);
      await new Promise((r) => setTimeout(r, 100))
    ) {
      const events = ((await (await raw(`/v1/stores/${bakery.id}/events?event_type=search&limit=50`)).json()) as any)
        .data;
      event = events.find((e: any) => e.rewritten_query === 'kimchi cabbage paste');
      const summary = (await (await raw('/v1/billing/summary')).json()) as any;
      billed =
        Number(summary.usages?.model_prompt_tokens?.current) >= 40 &&
        Number(summary.usages?.model_completion_tokens?.current) >= 4
          ? summary
          : null;
    }
    expect(event).toMatchObject({
      query: 'umm what was that spicy korean cabbage thing again??',
      rewritten_query: 'kimchi cabbage paste',
    });
    expect(billed).not.toBeNull();
  });

  it('search_options.rewrite_query of /v1/stores/search asks the model too, and searches and records its rewrite', async () => {
    double.reply({ content: 'sourdough starter rye flour', usage: { prompt_tokens: 30, completion_tokens: 3 } });
    const asked = 'hmm my bubbly jar thingy?';
    const res = await mxb.stores.search({
      query: asked,
      store_identifiers: [bakery.id],
      top_k: 1,
      search_options: { rewrite_query: true },
    });
    expect(res.data[0].filename).toBe('starter.md');
    const sent = double.requests[double.requests.length - 1].body;
    expect(sent.messages[sent.messages.length - 1]).toMatchObject({ role: 'user', content: asked });
    let event: any;
    for (
      const deadline = Date.now() + 15_000;
      Date.now() < deadline && !event;
      await new Promise((r) => setTimeout(r, 100))
    ) {
      const events = ((await (await raw(`/v1/stores/${bakery.id}/events?event_type=search&limit=50`)).json()) as any)
        .data;
      event = events.find((e: any) => e.rewritten_query === 'sourdough starter rye flour');
    }
    expect(event).toMatchObject({ query: asked, rewritten_query: 'sourdough starter rye flour' });
  });

  it('honours a static chunking strategy per store and per file', async () => {
    const long = Array.from(
      { length: 36 },
      (_, i) =>
        `Step ${i + 1}: fold the dough gently, rest it for twenty minutes, and keep it covered so that it does not dry out.`,
    ).join('\n\n');
    const small = await openai.vectorStores.create({
      name: 'Small chunks',
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 20 } },
    });
    const f = await openai.vectorStores.files.uploadAndPoll(
      small.id,
      await toFile(Buffer.from(long), 'steps.txt', { type: 'text/plain' }),
    );
    expect(f.chunking_strategy).toEqual({
      type: 'static',
      static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 20 },
    });
    const chunks = (await mxb.stores.files.retrieve(f.id, { store_identifier: small.id, return_chunks: true }))
      .chunks as any[];
    const defaults = await openai.vectorStores.files.uploadAndPoll(
      bakery.id,
      await toFile(Buffer.from(long), 'steps.txt', { type: 'text/plain' }),
    );
    expect(defaults.chunking_strategy).toEqual({
      type: 'static',
      static: { max_chunk_size_tokens: 512, chunk_overlap_tokens: 48 },
    });
    const bigger = (await mxb.stores.files.retrieve(defaults.id, { store_identifier: bakery.id, return_chunks: true }))
      .chunks as any[];
    expect(chunks.length).toBeGreaterThan(bigger.length);
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(100);
    await expect(
      openai.vectorStores.create({
        name: 'bad',
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 80 } },
      }),
    ).rejects.toMatchObject({
      status: 422,
    });
    await openai.vectorStores.delete(small.id);
  });

  it('cancels a batch: its files waiting or in ingestion stay as cancelled, unsearchable; attached again, a file is ingested', async () => {
    const target = await openai.vectorStores.create({ name: 'To cancel' });
    // four files of a few chunks each: the bundled model needs a while for each, so none is done when the cancel arrives
    const ids = [];
    for (const jar of ['apricot', 'plum', 'quince', 'cherry']) {
      const text = Array.from(
        { length: 60 },
        (_, i) => `Jar ${i} of ${jar} preserve: weigh the fruit, add sugar, boil to the setting point and seal it hot.`,
      ).join('\n\n');
      ids.push(
        (
          await openai.files.create({
            file: await toFile(Buffer.from(text), `${jar}.txt`, { type: 'text/plain' }),
            purpose: 'assistants',
          })
        ).id,
      );
    }
    const batch = await openai.vectorStores.fileBatches.create(target.id, {
      file_ids: ids,
      attributes: { shelf: 'low' },
    });
    expect(batch).toMatchObject({ status: 'in_progress', file_counts: { in_progress: 4, total: 4 } });
    const cancelled = await openai.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: target.id });
    expect(cancelled).toMatchObject({
      id: batch.id,
      status: 'cancelled',
      file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 4, total: 4 },
    });
    const files = (
      await openai.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: target.id, filter: 'cancelled' })
    ).data;
    expect(files.map((f) => f.id).sort()).toEqual([...ids].sort());
    expect(files.every((f) => (f.attributes as any).shelf === 'low')).toBe(true);
    expect((await openai.vectorStores.retrieve(target.id)).file_counts).toEqual({
      in_progress: 0,
      completed: 0,
      failed: 0,
      cancelled: 4,
      total: 4,
    });
    expect((await openai.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: target.id })).status).toBe(
      'cancelled',
    ); // twice: a no-op
    expect(
      (await openai.vectorStores.search(target.id, { query: 'jar of plum preserve', max_num_results: 50 })).data,
    ).toEqual([]);

    const again = await openai.vectorStores.files.createAndPoll(target.id, { file_id: ids[1] });
    expect(again).toMatchObject({ id: ids[1], status: 'completed' });
    expect((await openai.vectorStores.search(target.id, { query: 'jar of plum preserve' })).data[0].filename).toBe(
      'plum.txt',
    );
    await openai.vectorStores.delete(target.id);
  });

  it('a key scoped to one store reads, searches and lists its files there only, and writes nothing', async () => {
    const other = await openai.vectorStores.create({ name: 'Elsewhere' });
    const scoped = (
      await mxb.apiKeys.create({
        name: 'bakery reader',
        scope: [{ method: 'read', resource_type: 'store', resource_id: bakery.id }] as never,
      })
    ).value;
    const reader = new OpenAI({ apiKey: scoped, baseURL: `${t.baseURL}/v1`, maxRetries: 0 });
    expect((await reader.vectorStores.retrieve(bakery.id)).id).toBe(bakery.id);
    expect((await reader.vectorStores.search(bakery.id, { query: 'rye' })).data.length).toBeGreaterThan(0); // read grants search
    await expect(reader.vectorStores.retrieve(other.id)).rejects.toMatchObject({ status: 403 });
    await expect(reader.vectorStores.search(other.id, { query: 'rye' })).rejects.toMatchObject({ status: 403 });
    await expect(reader.vectorStores.update(bakery.id, { name: 'Mine now' })).rejects.toMatchObject({ status: 403 });
    await expect(reader.vectorStores.files.list(bakery.id)).rejects.toMatchObject({ status: 403 }); // listing needs list
    await expect(reader.vectorStores.create({ name: 'x' })).rejects.toMatchObject({ status: 403 });
    await expect(reader.vectorStores.delete(bakery.id)).rejects.toMatchObject({ status: 403 });
    await openai.vectorStores.delete(other.id);
  });

  it('deletes a file and a store, after which a retrieve answers 404 through either API', async () => {
    const files = await openai.vectorStores.files.list(bakery.id);
    const victim = files.data[0];
    expect(await openai.vectorStores.files.delete(victim.id, { vector_store_id: bakery.id })).toEqual({
      id: victim.id,
      object: 'vector_store.file.deleted',
      deleted: true,
    });
    await expect(openai.vectorStores.files.retrieve(victim.id, { vector_store_id: bakery.id })).rejects.toMatchObject({
      status: 404,
    });
    expect(await openai.files.retrieve(victim.id)).toMatchObject({ id: victim.id }); // the uploaded file stays

    expect(await openai.vectorStores.delete(bakery.id)).toEqual({
      id: bakery.id,
      object: 'vector_store.deleted',
      deleted: true,
    });
    const gone = await openai.vectorStores.retrieve(bakery.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect((gone as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('not found');
    await expect(mxb.stores.retrieve(bakery.id)).rejects.toMatchObject({ status: 404 });
    // another organization sees none of it
    const stranger = new OpenAI({
      apiKey: (await t.newOrganization('stranger')).apiKey,
      baseURL: `${t.baseURL}/v1`,
      maxRetries: 0,
    });
    expect((await stranger.vectorStores.list()).data).toEqual([]);
  });
});

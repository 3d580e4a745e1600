import Mixedbread, { toFile } from '@mixedbread/sdk';
import { eventBytes, LIMITS, RecordedEvent, START } from '@larder/kernel';
import { SearchActivity } from '@larder/search/search-activity';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);

/** Metadata at every limit at once: 256 keys, the longest strings that fit 64 KiB, nested 8 deep. */
function maxMetadata(): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  let nested: Record<string, unknown> = m;
  for (let d = 0; d < LIMITS.metadataDepth - 2; d++) nested = nested[`level${d}`] = {} as Record<string, unknown>;
  nested.leaf = 'deep';
  const keys = LIMITS.metadataKeys - (LIMITS.metadataDepth - 1);
  const room = LIMITS.metadataBytes - Buffer.byteLength(JSON.stringify(m)) - keys * 12 - 16;
  for (let i = 0; i < keys; i++) m[`k${String(i).padStart(3, '0')}`] = 'x'.repeat(Math.floor(room / keys));
  return m;
}

describe('limits: every command with maximum-size input appends events within LIMITS.eventBytes; beyond, nothing is appended', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  beforeAll(async () => {
    t = await startTestLarder();
    key = (await t.newOrganization('limits')).apiKey;
    c = t.client(key);
  });
  afterAll(async () => t?.close());

  const all = async (): Promise<RecordedEvent[]> => {
    const out: RecordedEvent[] = [];
    let after = START;
    for (;;) {
      const batch = await t.larder.infra.eventStore.readAll({ after, maxCount: 1000 });
      if (!batch.length) return out;
      out.push(...batch);
      after = batch[batch.length - 1].position;
    }
  };
  const post = (path: string, body: unknown) =>
    fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('maximum-size store, store file, search, grep and key inputs are accepted and their events stay within the maximum', async () => {
    const metadata = maxMetadata();
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBeLessThanOrEqual(LIMITS.metadataBytes);
    const store = await c.stores.create({
      name: 'x'.repeat(128).replace(/x/g, 'a'),
      description: 'd'.repeat(256),
      metadata,
    });
    const file = await c.files.create({
      file: await toFile(Buffer.from('limits'), `${'f'.repeat(200)}.txt`, { type: 'text/plain' }),
    });
    await c.stores.files.create(store.id, { file_id: file.id, metadata, external_id: 'e'.repeat(256) });
    // the file's ingestion appends events of its own: let it end, so none arrives during the next test
    for (
      let i = 0;
      i < 300 &&
      !['completed', 'failed'].includes(
        (await c.stores.files.retrieve(file.id, { store_identifier: store.id })).status!,
      );
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    await c.stores.update(store.id, { metadata });
    const filters = {
      any: Array.from({ length: 200 }, (_, i) => ({
        key: `k${i}`,
        operator: 'in',
        value: Array.from({ length: 10 }, (_, j) => `value-${i}-${j}`),
      })),
    };
    expect(Buffer.byteLength(JSON.stringify(filters))).toBeLessThanOrEqual(LIMITS.filterBytes);
    const search = await post('/v1/stores/search', {
      query: 'q'.repeat(LIMITS.queryChars),
      store_identifiers: [store.id],
      top_k: 1000,
      filters,
    });
    expect(search.status).toBe(200);
    const grep = await post('/v1/stores/grep', {
      pattern: 'p'.repeat(LIMITS.patternChars),
      store_identifiers: [store.id],
      filters,
    });
    expect(grep.status).toBe(200);
    await c.apiKeys.create({ name: 'n'.repeat(255) });
    await t.larder.app.get(SearchActivity).flush();

    const wanted = [
      'StoreCreated',
      'StoreUpdated',
      'FileUploaded',
      'StoreFileAdded',
      'StoreSearchPerformed',
      'StoreGrepPerformed',
      'ApiKeyCreated',
    ];
    // the log shows an event once every older transaction on the server has ended
    let events = await all();
    for (let i = 0; i < 100 && !wanted.every((w) => events.some((e) => e.type === w)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      events = await all();
    }
    const types = new Set(events.map((e) => e.type));
    for (const type of wanted) expect([type, types.has(type)]).toEqual([type, true]);
    const largest = events.reduce((a, e) => (eventBytes(e) > eventBytes(a) ? e : a));
    // eslint-disable-next-line no-console
    console.log(
      `limits: ${events.length} events, largest ${largest.type} at ${eventBytes(largest)} bytes (maximum ${LIMITS.eventBytes})`,
    );
    for (const e of events) expect([e.type, eventBytes(e) <= LIMITS.eventBytes]).toEqual([e.type, true]);
  });

  it('one step beyond each limit is a 413 or a 422 with its loc, and appends nothing', async () => {
    // derived entries (the activity reactor's, key usage) may still arrive from the previous test
    const commanded = async () =>
      (await all()).filter((e) => !['ActivityRecorded', 'ApiKeyUsed'].includes(e.type)).length;
    const before = await commanded();
    const over = { ...maxMetadata(), one_more_key: 1 };
    const cases: Array<[string, unknown, number, unknown[]]> = [
      ['/v1/stores', { name: 'over-meta', metadata: over }, 422, ['body', 'metadata']],
      [
        '/v1/stores',
        { name: 'over-deep', metadata: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } },
        422,
        ['body', 'metadata'],
      ],
      ['/v1/stores', { name: 'over-body', description: 'x'.repeat(LIMITS.jsonBodyBytes) }, 413, []],
      [
        '/v1/stores/search',
        { query: 'q'.repeat(LIMITS.queryChars + 1), store_identifiers: ['x'] },
        422,
        ['body', 'query'],
      ],
      [
        '/v1/stores/grep',
        { pattern: 'p'.repeat(LIMITS.patternChars + 1), store_identifiers: ['x'] },
        422,
        ['body', 'pattern'],
      ],
      [
        '/v1/stores/search',
        { query: 'q', store_identifiers: Array.from({ length: LIMITS.storeIdentifiers + 1 }, (_, i) => `s${i}`) },
        422,
        ['body', 'store_identifiers'],
      ],
      [
        '/v1/stores/search',
        {
          query: 'q',
          store_identifiers: ['x'],
          filters: {
            key: 'k',
            operator: 'in',
            value: Array.from({ length: LIMITS.filterListValues + 1 }, (_, i) => i),
          },
        },
        422,
        ['body', 'filters', 'value'],
      ],
      [
        '/v1/stores/search',
        {
          query: 'q',
          store_identifiers: ['x'],
          file_ids: Array.from({ length: LIMITS.fileIds + 1 }, (_, i) => `f${i}`),
        },
        422,
        ['body', 'file_ids'],
      ],
    ];
    for (const [path, body, status, loc] of cases) {
      const res = await post(path, body);
      const json = (await res.json()) as { detail?: { loc: unknown[] }[] };
      expect([path, loc, res.status]).toEqual([path, loc, status]);
      if (status === 422) expect([path, json.detail![0].loc]).toEqual([path, loc]);
    }
    await t.larder.app.get(SearchActivity).flush();
    expect(await commanded()).toBe(before);
  });
  it('a store filled with files named at the maximum length is searched by every read route at top_k 1,000: all answered, all recorded and billed', async () => {
    const name = (i: number) => `${String(i).padStart(4, '0')}${'n'.repeat(LIMITS.filenameChars - 8)}.txt`;
    // one step beyond: a 422 at the file name, nothing uploaded
    const tooLong = await c.files
      .create({
        file: await toFile(Buffer.from('x'), `${'n'.repeat(LIMITS.filenameChars - 3)}.txt`, { type: 'text/plain' }),
      })
      .catch((e) => e);
    expect(tooLong).toMatchObject({ status: 422, error: { detail: [{ loc: ['body', 'file', 'filename'] }] } });
    const multipart = await post('/v1/files/uploads', {
      filename: 'u'.repeat(LIMITS.filenameChars + 1),
      file_size: 1,
      mime_type: 'text/plain',
    });
    expect(multipart.status).toBe(422);

    const store = await c.stores.create({ name: 'long-names' });
    const FILES = 110;
    for (let i = 0; i < FILES; i++) {
      const sf = await c.stores.files.upload({
        storeIdentifier: store.id,
        file: await toFile(Buffer.from(`pickled limits note ${i}: brine, salt and limits.`), name(i), {
          type: 'text/plain',
        }),
      });
      expect(sf.filename ?? name(i)).toHaveLength(LIMITS.filenameChars);
    }
    for (let i = 0; i < 600 && (await c.stores.retrieve(store.id)).file_counts!.completed !== FILES; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await c.stores.retrieve(store.id)).file_counts!.completed).toBe(FILES);

    const billed = async () =>
      (
        (await (
          await fetch(`${t.baseURL}/v1/billing/summary`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { usages: Record<string, { current: string }> }
      ).usages;
    const before = await billed();
    const q = { query: 'pickled limits brine', store_identifiers: [store.id], top_k: 1000 };
    const routes: Array<[string, unknown, string]> = [
      ['/v1/stores/search', q, 'searches'],
      ['/v1/stores/search', { ...q, stream: true }, 'searches'],
      ['/v1/stores/grep', { pattern: 'limits', store_identifiers: [store.id], top_k: 1000 }, 'greps'],
      ['/v1/stores/question-answering', q, 'qa'],
      ['/v1/stores/question-answering', { ...q, stream: true }, 'qa'],
      ['/v1/stores/search', { ...q, search_options: { agentic: true } }, 'agentic_searches'],
      ['/v1/stores/search', { ...q, stream: true, search_options: { agentic: true } }, 'agentic_searches'],
      ['/v1/stores/files/search', q, 'searches'],
      [`/v1/vector_stores/${store.id}/search`, { query: 'pickled limits brine', max_num_results: 50 }, 'searches'],
    ];
    const expected: Record<string, number> = {};
    for (const [path, body, metric] of routes) {
      const res = await post(path, body);
      const text = await res.text();
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, /^event: error/m.test(text)]).toEqual([path, false]);
      expect([path, text.includes('n'.repeat(LIMITS.filenameChars - 8))]).toEqual([path, true]);
      expected[metric] = (expected[metric] ?? 0) + 1;
    }
    await t.larder.app.get(SearchActivity).flush();
    let usages = await billed();
    const grown = (m: string) => Number(usages[m]?.current ?? 0) - Number(before[m]?.current ?? 0);
    for (let i = 0; i < 100 && Object.entries(expected).some(([m, n]) => grown(m) < n); i++) {
      await new Promise((r) => setTimeout(r, 100));
      usages = await billed();
    }
    for (const [m, n] of Object.entries(expected)) expect([m, grown(m)]).toEqual([m, n]);
    const events = (await all()).filter((e) =>
      ['StoreSearchPerformed', 'StoreGrepPerformed', 'StoreQuestionAnswered', 'StoreAgenticSearchPerformed'].includes(
        e.type,
      ),
    );
    for (const e of events) expect([e.type, eventBytes(e) <= LIMITS.eventBytes]).toEqual([e.type, true]);
  });
});

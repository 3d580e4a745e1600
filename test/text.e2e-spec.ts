import { startChatCompletionsDouble, ChatCompletionsDouble } from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { closeAgent, contractViolation, send, RawResponse } from './support/fuzz-http';
import { componentsOf, enc, OpenApiDocument, operationsOf } from './support/fuzz-requests';
import { Schema } from './support/fuzz-schema';

jest.setTimeout(180_000);

/** Valid JSON, not valid Unicode: a high surrogate that pairs with nothing. */
const LONE = 'x\ud800y';
const LONE_KEY = 'k\udfff';

type Loc = (string | number)[];

/** Where a string can go in a body the schema describes: a string value, or a key of a free-form object. */
interface Slot {
  path: Loc;
  kind: 'value' | 'key';
}

/** Every string slot of a schema (each alternative of a oneOf/anyOf, the items of arrays, free-form objects' keys). */
function slotsOf(schema: Schema, components: Record<string, Schema>, path: Loc = [], seen: string[] = []): Slot[] {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = components[name];
    if (!target || seen.includes(name)) return [{ path, kind: 'value' }];
    return slotsOf(target, components, path, [...seen, name]);
  }
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return alternatives.flatMap((a) => slotsOf(a, components, path, seen));
  if (schema.enum || schema.const !== undefined) return [{ path, kind: 'value' }];
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const slots: Slot[] = [];
  if (types.includes('string')) slots.push({ path, kind: 'value' });
  if (schema.properties)
    for (const [k, p] of Object.entries(schema.properties)) slots.push(...slotsOf(p, components, [...path, k], seen));
  else if (types.includes('object') || !types.length)
    slots.push({ path, kind: 'key' }, ...(types.length ? [] : [{ path, kind: 'value' as const }]));
  if (types.includes('array') || schema.items || schema.prefixItems)
    slots.push(...slotsOf(schema.items ?? schema.prefixItems?.[0] ?? {}, components, [...path, 0], seen));
  return slots;
}

/** A body holding `leaf` at `path` (objects for names, one-item arrays for indexes). */
const place = (path: Loc, leaf: unknown): unknown =>
  path.length
    ? typeof path[0] === 'number'
      ? [place(path.slice(1), leaf)]
      : { [path[0]]: place(path.slice(1), leaf) }
    : leaf;

/** A multipart/form-data body, written by hand so that names and bytes are exactly these (file names percent-encoded, RFC 5987). */
function multipart(parts: Array<{ name: string; value?: string; filename?: string }>): { body: Buffer; type: string } {
  const boundary = 'textboundary';
  const chunks = parts.map((p) =>
    p.filename !== undefined
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename*=utf-8''${encodeURIComponent(p.filename)}\r\nContent-Type: text/plain\r\n\r\nsome text\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`,
  );
  return {
    body: Buffer.from(`${chunks.join('')}--${boundary}--\r\n`),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

describe('text that PostgreSQL cannot store (lone surrogates, NUL) is a 422 with its loc on every route', () => {
  let t: TestLarder;
  let llm: ChatCompletionsDouble;
  let key: string;
  const auth = () => ({ authorization: `Bearer ${key}` });
  const json = (method: string, path: string, body: unknown) =>
    send(t.baseURL, {
      method,
      path,
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const created = async <T>(r: Promise<RawResponse>): Promise<T> => {
    const res = await r;
    if (res.status >= 300) throw new Error(`fixture request answered ${res.status}: ${res.body}`);
    return JSON.parse(res.body) as T;
  };
  const expect422 = (res: RawResponse, loc: Loc, type = 'string_unicode') => {
    expect([res.status, contractViolation(res)]).toEqual([422, null]);
    expect((JSON.parse(res.body) as { detail: Array<{ loc: Loc; type: string }> }).detail[0]).toMatchObject({
      loc,
      type,
    });
  };

  beforeAll(async () => {
    llm = await startChatCompletionsDouble();
    t = await startTestLarder({ env: { LARDER_LLM_URL: llm.url, LARDER_LLM_MODEL: 'double-model' } });
    key = (await t.newOrganization('text')).apiKey;
  });
  afterAll(async () => {
    closeAgent();
    await t?.close();
    await llm?.close();
  });

  it('refuses the write paths that answered 500, and stores nothing for them', async () => {
    const store = await created<{ id: string }>(json('POST', '/v1/stores', { name: 'pantry' }));
    const form = multipart([{ name: 'file', filename: 'jam.txt' }]);
    const file = await created<{ id: string }>(
      send(t.baseURL, {
        method: 'POST',
        path: '/v1/files',
        headers: { ...auth(), 'content-type': form.type },
        body: form.body,
      }),
    );
    await created(json('POST', `/v1/stores/${store.id}/files`, { file_id: file.id }));
    const vs = await created<{ id: string }>(json('POST', '/v1/vector_stores', { name: 'shelf' }));
    await created(json('POST', `/v1/vector_stores/${vs.id}/files`, { file_id: file.id }));
    const rules = [{ type: 'query_string', substitution: 'jam' }];

    const cases: Array<[string, string, string, unknown, Loc]> = [
      ['store create: description', 'POST', '/v1/stores', { name: 'a', description: LONE }, ['body', 'description']],
      [
        'store create: metadata value',
        'POST',
        '/v1/stores',
        { name: 'b', metadata: { k: LONE } },
        ['body', 'metadata', 'k'],
      ],
      [
        'store create: metadata key',
        'POST',
        '/v1/stores',
        { name: 'c', metadata: { [LONE_KEY]: 1 } },
        ['body', 'metadata', LONE_KEY],
      ],
      ['store create: name', 'POST', '/v1/stores', { name: LONE }, ['body', 'name']],
      ['store update', 'PUT', `/v1/stores/${store.id}`, { description: LONE }, ['body', 'description']],
      [
        'store file PATCH',
        'PATCH',
        `/v1/stores/${store.id}/files/${file.id}`,
        { metadata: { shelf: LONE } },
        ['body', 'metadata', 'shelf'],
      ],
      [
        'attach: external_id',
        'POST',
        `/v1/stores/${store.id}/files`,
        { file_id: file.id, external_id: LONE },
        ['body', 'external_id'],
      ],
      ['API key name', 'POST', '/v1/api-keys', { name: LONE }, ['body', 'name']],
      ['rule query', 'POST', `/v1/stores/${store.id}/rules`, { query: LONE, rules }, ['body', 'query']],
      ['vector store name', 'POST', '/v1/vector_stores', { name: LONE }, ['body', 'name']],
      [
        'vector store metadata',
        'POST',
        `/v1/vector_stores/${vs.id}`,
        { metadata: { [LONE_KEY]: 'v' } },
        ['body', 'metadata', LONE_KEY],
      ],
      [
        'vector store file attributes',
        'POST',
        `/v1/vector_stores/${vs.id}/files/${file.id}`,
        { attributes: { shelf: LONE } },
        ['body', 'attributes', 'shelf'],
      ],
      [
        'multipart upload: filename',
        'POST',
        '/v1/files/uploads',
        { filename: LONE, file_size: 4, mime_type: 'text/plain', part_count: 1 },
        ['body', 'filename'],
      ],
      ['search query', 'POST', '/v1/stores/search', { query: LONE, store_identifiers: [store.id] }, ['body', 'query']],
      [
        'grep pattern',
        'POST',
        '/v1/stores/grep',
        { pattern: LONE, store_identifiers: [store.id] },
        ['body', 'pattern'],
      ],
      [
        'question answering',
        'POST',
        '/v1/stores/question-answering',
        { query: LONE, store_identifiers: [store.id] },
        ['body', 'query'],
      ],
    ];
    for (const [what, method, path, body, loc] of cases) {
      const res = await json(method, path, body);
      expect([what, res.status]).toEqual([what, 422]);
      expect422(res, loc);
    }

    // a stored chat completion: refused before the model runs
    const asked = llm.requests.length;
    const chat = await json('POST', '/v1/chat/completions', {
      messages: [{ role: 'user', content: LONE }],
      store: true,
    });
    expect422(chat, ['body', 'messages', 0, 'content']);
    expect(llm.requests.length).toBe(asked);

    // multipart: the upload's metadata part (JSON), its external_id and description parts, a file name
    const upload = `/v1/stores/${store.id}/files/upload`;
    const parts: Array<[string, string, Array<{ name: string; value?: string; filename?: string }>, Loc, string]> = [
      [
        'metadata part',
        upload,
        [
          { name: 'file', filename: 'a.txt' },
          { name: 'metadata', value: '{"shelf": "x\\ud800y"}' },
        ],
        ['body', 'metadata', 'shelf'],
        'string_unicode',
      ],
      [
        'metadata part, before the file',
        upload,
        [
          { name: 'metadata', value: '{"x\\udc00": 1}' },
          { name: 'file', filename: 'b.txt' },
        ],
        ['body', 'metadata', 'x\udc00'],
        'string_unicode',
      ],
      [
        'params part',
        upload,
        [
          { name: 'file', filename: 'c.txt' },
          { name: 'params', value: '{"external_id": "x\\ud800y"}' },
        ],
        ['body', 'params', 'external_id'],
        'string_unicode',
      ],
      [
        'external_id part',
        upload,
        [
          { name: 'file', filename: 'd.txt' },
          { name: 'external_id', value: 'a\u0000b' },
        ],
        ['body', 'external_id'],
        'string_nul',
      ],
      ['a file name', upload, [{ name: 'file', filename: 'e\u0000.txt' }], ['body', 'file', 'filename'], 'string_nul'],
      [
        'a file name (files)',
        '/v1/files',
        [{ name: 'file', filename: 'f\u0000.txt' }],
        ['body', 'file', 'filename'],
        'string_nul',
      ],
      [
        'description part (files)',
        '/v1/files',
        [
          { name: 'description', value: 'g\u0000' },
          { name: 'file', filename: 'g.txt' },
        ],
        ['body', 'description'],
        'string_nul',
      ],
      [
        'description part (replace)',
        `/v1/files/${file.id}`,
        [
          { name: 'file', filename: 'h.txt' },
          { name: 'description', value: 'h\u0000' },
        ],
        ['body', 'description'],
        'string_nul',
      ],
      [
        'a file name (replace)',
        `/v1/files/${file.id}`,
        [{ name: 'file', filename: 'i\u0000.txt' }],
        ['body', 'file', 'filename'],
        'string_nul',
      ],
    ];
    for (const [what, path, fields, loc, type] of parts) {
      const form = multipart(fields);
      const res = await send(t.baseURL, {
        method: 'POST',
        path,
        headers: { ...auth(), 'content-type': form.type },
        body: form.body,
      });
      expect([what, res.status]).toEqual([what, 422]);
      expect422(res, loc, type);
    }

    // nothing of the refused requests was kept
    const files = (
      await created<{ data: Array<{ filename: string; version: number }> }>(
        send(t.baseURL, { method: 'GET', path: '/v1/files?limit=100', headers: auth() }),
      )
    ).data;
    // the refused replaces left the file as it was
    expect(files.map((f) => [f.filename, f.version])).toEqual([['jam.txt', 1]]);
    const stores = (
      await created<{ data: Array<{ name: string; description: string | null }> }>(
        send(t.baseURL, { method: 'GET', path: '/v1/stores', headers: auth() }),
      )
    ).data;
    // the vector store is a store too
    expect(stores.map((s) => [s.name.replace(/-\w+$/, ''), s.description]).sort()).toEqual([
      ['pantry', null],
      ['shelf', null],
    ]);
    const storeFiles = (
      await created<{ data: Array<{ metadata: unknown }> }>(json('POST', `/v1/stores/${store.id}/files/list`, {}))
    ).data;
    expect(storeFiles.map((f) => f.metadata)).toEqual([null]);
  });

  it('walks every string field and free-form key of every JSON route, every query and path parameter: 422 with the loc, never 500', async () => {
    const doc = (await (await fetch(`${t.baseURL}/openapi.json`)).json()) as OpenApiDocument;
    const components = componentsOf(doc);
    const operations = operationsOf(doc);
    const failures: string[] = [];
    let checked = 0;
    const check = async (what: string, res: RawResponse, loc: Loc) => {
      checked++;
      const detail =
        res.status === 422 ? (JSON.parse(res.body) as { detail?: Array<{ loc: Loc }> }).detail?.[0] : undefined;
      if (res.status !== 422 || contractViolation(res) || JSON.stringify(detail?.loc) !== JSON.stringify(loc))
        failures.push(`${what}: ${res.status} ${res.body.slice(0, 200)}`);
    };
    for (const op of operations) {
      const path = op.path.replace(/\{(\w+)\}/g, 'x');
      if (op.body?.kind === 'json') {
        const slots = slotsOf(op.body.schema, components);
        const unique = [...new Map(slots.map((s) => [`${s.kind}:${JSON.stringify(s.path)}`, s])).values()];
        for (const s of unique) {
          const [body, loc] =
            s.kind === 'value'
              ? [place(s.path, LONE), ['body', ...s.path]]
              : [place(s.path, { [LONE_KEY]: 1 }), ['body', ...s.path, LONE_KEY]];
          const res = await send(t.baseURL, {
            method: op.method,
            path,
            headers: { ...auth(), 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await check(`${op.route} ${s.kind} ${JSON.stringify(s.path)}`, res, loc);
        }
      }
      const queryNames = Object.keys(
        (op.query?.$ref ? components[op.query.$ref.replace('#/components/schemas/', '')] : op.query)?.properties ?? {},
      );
      for (const name of queryNames) {
        for (const bad of ['a\u0000b', LONE]) {
          const res = await send(t.baseURL, {
            method: op.method,
            path: `${path}?${name}=${enc(bad)}`,
            headers: auth(),
          });
          await check(`${op.route} query ${name}=${JSON.stringify(bad)}`, res, ['query', name]);
        }
      }
      for (const param of op.pathParams) {
        for (const bad of ['a\u0000b', LONE]) {
          const res = await send(t.baseURL, {
            method: op.method,
            path: op.path.replace(/\{(\w+)\}/g, (_, p: string) => (p === param ? enc(bad) : 'x')),
            headers: auth(),
          });
          await check(`${op.route} path ${param}=${JSON.stringify(bad)}`, res, ['path']);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(50);
    expect(checked).toBeGreaterThan(300);
    // the server is alive afterwards
    expect((await send(t.baseURL, { method: 'GET', path: '/v1/stores', headers: auth() })).status).toBe(200);
  });
});

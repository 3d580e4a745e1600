import { readFileSync } from 'fs';
import { join } from 'path';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

const API_NOTES = readFileSync(join(__dirname, '..', 'docs', 'api.md'), 'utf8');
const NOT_A_UUID = 'not-a-uuid';
const UNKNOWN_UUID = '0f0e0d0c-0b0a-4908-8706-050403020100';

interface Detail {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/**
 * The contract audit's list, each item through raw HTTP or the official client: keys in the
 * ecosystem's `mxb_` format, 0-based line numbers, `x-should-retry: false` on conflicts, malformed
 * UUIDs in paths, strict booleans and types, `top_k` without a maximum, `q` over file descriptions,
 * file content as octet-stream, rerolling a revoked key, the deprecated store-file listing, and the
 * error codes of the API notes (docs/api.md).
 */
describe('compatibility with the Mixedbread clients', () => {
  let t: TestLarder;
  let key: string;
  let c: Mixedbread;
  let storeId: string;
  /** Every error `type` and ingestion `code` this suite saw the server answer (checked against the API notes at the end). */
  const seenCodes = new Set<string>();

  const raw = async (path: string, init: RequestInit & { key?: string } = {}) => {
    const { key: k, ...rest } = init;
    const headers: Record<string, string> = { authorization: `Bearer ${k ?? key}` };
    if (typeof rest.body === 'string') headers['content-type'] = 'application/json';
    const res = await fetch(`${t.baseURL}${path}`, { ...rest, headers: { ...headers, ...(rest.headers ?? {}) } });
    return res;
  };
  const json = async (res: Response) => {
    const body = (await res.json()) as Record<string, unknown>;
    const type = (body.error as { type?: string } | undefined)?.type;
    if (type) seenCodes.add(type);
    return body;
  };
  const details = async (res: Response) => ((await json(res)).detail ?? []) as Detail[];

  beforeAll(async () => {
    t = await startTestLarder();
    const org = await t.newOrganization('compat');
    key = org.apiKey;
    c = t.client(key);
    storeId = (await c.stores.create({ name: 'compat-shelf' })).id;
  });
  afterAll(async () => t?.close());

  describe('API keys in the ecosystem’s format', () => {
    it('issues mxb_ keys on create and reroll, shows them redacted, and keeps older lrd_ keys working', async () => {
      const created = await c.apiKeys.create({ name: 'cli' });
      expect(created.value).toMatch(/^mxb_[A-Za-z0-9]{43}$/);
      expect(created.redacted_value).toBe(`mxb_${'*'.repeat(12)}${created.value.slice(-4)}`);
      expect((await t.client(created.value).apiKeys.retrieve(created.id)).id).toBe(created.id);

      const rerolled = await c.apiKeys.reroll(created.id);
      expect(rerolled.value).toMatch(/^mxb_[A-Za-z0-9]{43}$/);
      expect(rerolled.redacted_value).toBe(`mxb_${'*'.repeat(12)}${rerolled.value.slice(-4)}`);
      await expect(t.client(created.value).apiKeys.list()).rejects.toMatchObject({ status: 401 });

      // the suite's root key is an lrd_ key, as every key issued before mxb_ was
      expect(t.rootKey.startsWith('lrd_')).toBe(true);
      expect((await t.client(t.rootKey).apiKeys.list()).data.length).toBeGreaterThan(0);
    });

    it('keeps secrets out of events: only hashes and redacted forms are stored', async () => {
      const k = await c.apiKeys.create({ name: 'secretive' });
      const r = await c.apiKeys.reroll(k.id);
      const events = await t.larder.infra.eventStore.readAll({ maxCount: 100_000 });
      const text = JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      for (const secret of [k.value, r.value, key, t.rootKey]) expect(text).not.toContain(secret);
      expect(text).toContain(r.redacted_value);
    });

    it('rerolls a revoked key as any key that exists: a new secret, and the key stays revoked', async () => {
      const k = await c.apiKeys.create({ name: 'to-revoke' });
      const revoked = await c.apiKeys.revoke(k.id);
      const rerolled = await c.apiKeys.reroll(k.id);
      expect(rerolled).toMatchObject({ id: k.id, object: 'api_key', expires_at: revoked.expires_at });
      expect(rerolled.value).toMatch(/^mxb_/);
      expect(rerolled.value).not.toBe(k.value);
      expect(rerolled.redacted_value).not.toBe(k.redacted_value);
      // the old secret is no key any more; the new one is the revoked key's
      await expect(t.client(k.value).apiKeys.list()).rejects.toMatchObject({ status: 401 });
      const err = await t
        .client(rerolled.value)
        .apiKeys.list()
        .catch((e: unknown) => e);
      expect(err).toMatchObject({
        status: 401,
        error: { message: expect.stringMatching(/revoked/), error: { type: 'unauthorized' } },
      });
      seenCodes.add((err as { error: { error: { type: string } } }).error.error.type);
      expect((await c.apiKeys.retrieve(k.id)).redacted_value).toBe(rerolled.redacted_value);
      await c.apiKeys.delete(k.id);
      await expect(c.apiKeys.reroll(k.id)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('409 answers', () => {
    it('carry x-should-retry: false, so the official client asks once', async () => {
      await c.stores.create({ name: 'taken-name' });
      const res = await raw('/v1/stores', { method: 'POST', body: JSON.stringify({ name: 'taken-name' }) });
      expect(res.status).toBe(409);
      expect(res.headers.get('x-should-retry')).toBe('false');
      expect(await json(res)).toMatchObject({ error: { code: 409, type: 'conflict' } });

      // the client's default is 2 retries for a 409; the header turns them off
      let calls = 0;
      const counting = new Mixedbread({
        apiKey: key,
        baseURL: t.baseURL,
        maxRetries: 2,
        fetch: (input: string | URL | Request, init?: RequestInit) => {
          calls++;
          return fetch(input, init);
        },
      });
      await expect(counting.stores.create({ name: 'taken-name' })).rejects.toMatchObject({ status: 409 });
      expect(calls).toBe(1);
    });
  });

  describe('path parameters that the contract types as UUIDs', () => {
    it('answer 422 at ["path", <name>] when malformed, on every route, and 404 when well-formed but unknown', async () => {
      const routes: Array<[string, string, string, unknown?]> = [
        ['GET', '/v1/api-keys/{id}', 'api_key_id'],
        ['PATCH', '/v1/api-keys/{id}', 'api_key_id', { name: 'x' }],
        ['DELETE', '/v1/api-keys/{id}', 'api_key_id'],
        ['POST', '/v1/api-keys/{id}/revoke', 'api_key_id'],
        ['POST', '/v1/api-keys/{id}/reroll', 'api_key_id'],
        ['GET', '/v1/files/{id}', 'file_id'],
        ['DELETE', '/v1/files/{id}', 'file_id'],
        ['GET', '/v1/files/{id}/content', 'file_id'],
        ['GET', '/v1/files/uploads/{id}', 'upload_id'],
        ['POST', '/v1/files/uploads/{id}/complete', 'upload_id', { parts: [{ part_number: 1, etag: 'x' }] }],
        ['POST', '/v1/files/uploads/{id}/abort', 'upload_id'],
        ['GET', `/v1/stores/${storeId}/rules/{id}`, 'rule_id'],
        ['PUT', `/v1/stores/${storeId}/rules/{id}`, 'rule_id', { query: 'jam', file_ids: [] }],
        ['DELETE', `/v1/stores/${storeId}/rules/{id}`, 'rule_id'],
        [
          'DELETE',
          `/v1/stores/${storeId}/rules/{id}/specific`,
          'rule_id',
          { rule: { type: 'chunk_search_result', file_id: UNKNOWN_UUID, chunk_index: 0, result_index: 0 } },
        ],
        ['GET', '/v1/billing/stores/{id}/costs/histogram', 'store_id'],
        ['GET', '/v1/trace-destinations/{id}', 'trace_destination_id'],
        ['PATCH', '/v1/trace-destinations/{id}', 'trace_destination_id', { name: 'x' }],
        ['DELETE', '/v1/trace-destinations/{id}', 'trace_destination_id'],
      ];
      for (const [method, path, name, body] of routes) {
        const init = { method, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
        const bad = await raw(path.replace('{id}', NOT_A_UUID), init);
        expect([method, path, bad.status]).toEqual([method, path, 422]);
        expect(await details(bad)).toEqual([
          { loc: ['path', name], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: NOT_A_UUID },
        ]);
        const unknown = await raw(path.replace('{id}', UNKNOWN_UUID), init);
        expect([method, path, unknown.status]).toEqual([method, path, 404]);
        expect(await json(unknown)).toMatchObject({ error: { code: 404, type: 'not_found' } });
      }
      // multipart replace: refused before its body is read
      const form = new FormData();
      form.append('file', new Blob(['x']), 'x.txt');
      const replace = await raw(`/v1/files/${NOT_A_UUID}`, { method: 'POST', body: form });
      expect(replace.status).toBe(422);
      expect((await details(replace))[0]).toMatchObject({ loc: ['path', 'file_id'], type: 'uuid_parsing' });
      // the admin route's organization id (the root key is an admin key)
      const reingest = await raw(`/v1/admin/stores/${NOT_A_UUID}/${storeId}/reingest`, {
        method: 'POST',
        key: t.rootKey,
      });
      expect(reingest.status).toBe(422);
      expect((await details(reingest)).map((d) => d.loc.join('.'))).toEqual(['path.organization_id']);
      // and through the official client
      await expect(c.files.retrieve(NOT_A_UUID)).rejects.toMatchObject({ status: 422 });
      await expect(c.apiKeys.retrieve(NOT_A_UUID)).rejects.toMatchObject({ status: 422 });
    });
  });

  describe('strict booleans and types', () => {
    it('refuses include_total=maybe on every cursor listing, and takes true/false/1/0', async () => {
      for (const listing of [
        '/v1/files',
        '/v1/stores',
        `/v1/stores/${storeId}/files`,
        `/v1/stores/${storeId}/events?event_type=ingestion`,
      ]) {
        const [path, query] = listing.includes('?') ? [listing, '&'] : [listing, '?'];
        const res = await raw(`${path}${query}include_total=maybe`);
        expect([path, res.status]).toEqual([path, 422]);
        expect(await details(res)).toEqual([
          expect.objectContaining({ loc: ['query', 'include_total'], type: 'bool_parsing', input: 'maybe' }),
        ]);
        const twice = await raw(`${path}${query}include_total=true&include_total=false`);
        expect([path, twice.status]).toEqual([path, 422]);
        for (const [v, total] of [
          ['true', true],
          ['1', true],
          ['false', false],
          ['0', false],
        ] as const) {
          const ok = await raw(`${path}${query}include_total=${v}`);
          expect([path, v, ok.status]).toEqual([path, v, 200]);
          const page = (await ok.json()) as { pagination: { total?: number } };
          expect([path, v, typeof page.pagination.total === 'number']).toEqual([path, v, total]);
        }
      }
      const body = await raw(`/v1/stores/${storeId}/files/list`, {
        method: 'POST',
        body: JSON.stringify({ include_total: 'maybe' }),
      });
      expect(body.status).toBe(422);
      expect((await details(body)).map((d) => d.loc.join('.'))).toEqual(['body.include_total']);
    });

    it('refuses stream: "yes" where stream is a boolean', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['/v1/stores/search', { query: 'jam', store_identifiers: [storeId], stream: 'yes' }],
        ['/v1/stores/question-answering', { query: 'jam?', store_identifiers: [storeId], stream: 'yes' }],
        ['/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], stream: 'yes' }],
      ];
      for (const [path, body] of cases) {
        const res = await raw(path, { method: 'POST', body: JSON.stringify(body) });
        expect([path, res.status]).toEqual([path, 422]);
        expect((await details(res)).map((d) => d.loc.join('.'))).toContain('body.stream');
      }
    });

    it('keeps store-file metadata that is any JSON value, sent as JSON or in the multipart upload', async () => {
      const f = await c.files.create({
        file: await toFile(Buffer.from('Plum jam: plums, sugar, time.'), 'plum.txt', { type: 'text/plain' }),
      });
      for (const metadata of ['a string', 5, [1, 2], true]) {
        const add = await raw(`/v1/stores/${storeId}/files`, {
          method: 'POST',
          body: JSON.stringify({ file_id: f.id, metadata }),
        });
        expect([metadata, add.status]).toEqual([metadata, 201]);
        expect(((await add.json()) as { metadata: unknown }).metadata).toEqual(metadata);
      }
      const sf = await c.stores.files.create(storeId, { file_id: f.id, metadata: { kind: 'jam' } });
      const patch = await raw(`/v1/stores/${storeId}/files/${sf.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ metadata: ['kind', 'jam'] }),
      });
      expect(patch.status).toBe(200);
      expect(((await patch.json()) as { metadata: unknown }).metadata).toEqual(['kind', 'jam']);
      // the multipart upload: a separate metadata part, and metadata inside params
      for (const [part, value, metadata] of [
        ['metadata', '"just text"', 'just text'],
        ['params', '{"metadata": 7}', 7],
      ] as const) {
        const form = new FormData();
        form.append('file', new Blob(['Quince paste.']), 'quince.txt');
        form.append(part, value);
        const up = await raw(`/v1/stores/${storeId}/files/upload`, { method: 'POST', body: form });
        expect([part, up.status]).toEqual([part, 201]);
        expect(((await up.json()) as { metadata: unknown }).metadata).toEqual(metadata);
      }
      // null clears
      expect(
        (await c.stores.files.update(sf.id, { store_identifier: storeId, metadata: null })).metadata ?? null,
      ).toBeNull();
    });
  });

  describe('top_k', () => {
    it('has no maximum: any positive integer is answered (with at most 1,000 results), nothing else is', async () => {
      const body = { query: 'jam', store_identifiers: [storeId] };
      for (const path of [
        '/v1/stores/search',
        '/v1/stores/grep',
        '/v1/stores/list-chunks',
        '/v1/stores/question-answering',
        '/v1/stores/metadata-facets',
      ]) {
        for (const top_k of [1001, 5000, 1_000_000_000, Number.MAX_SAFE_INTEGER]) {
          const payload = path.endsWith('grep')
            ? { pattern: 'jam', store_identifiers: [storeId], top_k }
            : { ...body, top_k };
          const res = await raw(path, { method: 'POST', body: JSON.stringify(payload) });
          expect([path, top_k, res.status]).toEqual([path, top_k, 200]);
        }
        for (const top_k of [0, -1, 1.5, '10', null]) {
          const payload = path.endsWith('grep')
            ? { pattern: 'jam', store_identifiers: [storeId], top_k }
            : { ...body, top_k };
          const res = await raw(path, { method: 'POST', body: JSON.stringify(payload) });
          // null counts as absent (the default, 10)
          expect([path, top_k, res.status]).toEqual([path, top_k, top_k === null ? 200 : 422]);
          if (top_k !== null) expect((await details(res)).map((d) => d.loc.join('.'))).toContain('body.top_k');
        }
      }
      const found = await c.stores.search({ query: 'jam', store_identifiers: [storeId], top_k: 100_000 });
      expect(found.data.length).toBeLessThanOrEqual(1000);
    });
  });

  describe('files', () => {
    it('GET /v1/files?q= matches a file’s description as well as its name', async () => {
      // the description part may come before or after the file part
      const upload = async (name: string, text: string, description: string, before: boolean) => {
        const form = new FormData();
        if (before) form.append('description', description);
        form.append('file', new Blob([text], { type: 'text/plain' }), name);
        if (!before) form.append('description', description);
        const res = await raw('/v1/files', { method: 'POST', body: form });
        expect(res.status).toBe(201);
        const body = (await res.json()) as Record<string, unknown>;
        // the description is no field of FileObject
        expect(body).toMatchObject({ filename: name, bytes: text.length, mime_type: 'text/plain', version: 1 });
        expect(body).not.toHaveProperty('description');
        return body.id as string;
      };
      const ledger = await upload(
        'ledger-2026.txt',
        'Q1 totals',
        'Quarterly cellar inventory with rhubarb counts',
        true,
      );
      const notes = await upload('notes.txt', 'misc', 'Gooseberry harvest diary', false);
      const plain = (
        await c.files.create({
          file: await toFile(Buffer.from('no description'), 'rhubarb-recipes.txt', { type: 'text/plain' }),
        })
      ).id;

      const ids = async (q: string) => {
        const out: string[] = [];
        for await (const f of c.files.list({ q, limit: 10 })) out.push(f.id);
        return out;
      };
      expect(await ids('gooseberry')).toEqual([notes]);
      expect(await ids('inventory')).toEqual([ledger]);
      expect(new Set(await ids('rhubarb'))).toEqual(new Set([ledger, plain])); // a description and a name
      expect(await ids('gooseberies')).toEqual([notes]); // a typo still matches
      const counted = await raw('/v1/files?q=gooseberry&include_total=true');
      expect(((await counted.json()) as { pagination: { total: number } }).pagination.total).toBe(1);

      // a replace keeps the description unless it sends one; an empty one clears it
      await c.files.update(notes, { file: await toFile(Buffer.from('v2'), 'notes.txt', { type: 'text/plain' }) });
      expect(await ids('gooseberry')).toEqual([notes]);
      const form = new FormData();
      form.append('file', new Blob(['v3']), 'notes.txt');
      form.append('description', 'Elderflower cordial');
      expect((await raw(`/v1/files/${notes}`, { method: 'POST', body: form })).status).toBe(200);
      expect(await ids('gooseberry')).toEqual([]);
      expect(await ids('elderflower')).toEqual([notes]);

      // a multipart upload takes one too
      const up = await raw('/v1/files/uploads', {
        method: 'POST',
        body: JSON.stringify({
          filename: 'big.bin',
          file_size: 5,
          mime_type: 'application/octet-stream',
          description: 'Damson vinegar batch',
        }),
      });
      expect(up.status).toBe(201);
      const created = (await up.json()) as { id: string; part_urls: Array<{ url: string }> };
      const put = await fetch(created.part_urls[0].url, { method: 'PUT', body: Buffer.from('12345') });
      const done = await c.files.uploads.complete(created.id, {
        parts: [{ part_number: 1, etag: put.headers.get('etag')! }],
      });
      expect(await ids('damson')).toEqual([done.id]);

      // a description that is too long leaves nothing behind
      const before = (await raw('/v1/files?include_total=true').then((r) => r.json())) as {
        pagination: { total: number };
      };
      const tooLong = new FormData();
      tooLong.append('file', new Blob(['x']), 'x.txt');
      tooLong.append('description', 'd'.repeat(1025));
      const refused = await raw('/v1/files', { method: 'POST', body: tooLong });
      expect(refused.status).toBe(422);
      expect((await details(refused)).map((d) => [d.loc.join('.'), d.type])).toEqual([
        ['body.description', 'string_too_long'],
      ]);
      const after = (await raw('/v1/files?include_total=true').then((r) => r.json())) as {
        pagination: { total: number };
      };
      expect(after.pagination.total).toBe(before.pagination.total);
    });

    it('GET /v1/files/{id}/content answers application/octet-stream and keeps the filename in Content-Disposition', async () => {
      const f = await c.files.create({
        file: await toFile(Buffer.from('<b>not rendered</b>'), 'page è.html', { type: 'text/html' }),
      });
      expect(f.mime_type).toBe('text/html');
      const res = await c.files.content(f.id);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="page _.html"; filename*=UTF-8''${encodeURIComponent('page è.html')}`,
      );
      expect(await res.text()).toBe('<b>not rendered</b>');
    });
  });

  describe('store files', () => {
    it('the deprecated GET listing says so: a Deprecation header, a Link to its successor, deprecated in the OpenAPI document', async () => {
      const res = await raw(`/v1/stores/${storeId}/files`);
      expect(res.status).toBe(200);
      expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(res.headers.get('link')).toBe(`</v1/stores/${storeId}/files/list>; rel="successor-version"`);
      const current = await raw(`/v1/stores/${storeId}/files/list`, { method: 'POST', body: '{}' });
      expect(current.status).toBe(200);
      expect(current.headers.get('deprecation')).toBeNull();

      const doc = (await (await fetch(`${t.baseURL}/v1/schemas/mxjson`)).json()) as {
        paths: Record<string, Record<string, { deprecated?: boolean }>>;
      };
      const path = Object.keys(doc.paths).find((p) => /^\/v1\/stores\/\{store_identifier\}\/files$/.test(p))!;
      expect(doc.paths[path].get.deprecated).toBe(true);
      expect(doc.paths[path].post.deprecated).toBeFalsy();
    });

    it('reports line numbers 0-based (start_line), as upstream and mgrep read them', async () => {
      const text =
        '\n\n\nFirst real line of the brine notes.\nSecond line: five percent salt.\n\nThird paragraph, after a blank line.\n';
      const sf = await c.stores.files.uploadAndPoll({
        storeIdentifier: storeId,
        file: await toFile(Buffer.from(text), 'brine.txt', { type: 'text/plain' }),
        pollIntervalMs: 100,
      });
      expect(sf.status).toBe('completed');
      const got = await c.stores.files.retrieve(sf.id, { store_identifier: storeId, return_chunks: true });
      const lines = text.split('\n');
      const chunks = got.chunks as unknown as Array<{
        text: string;
        generated_metadata: { start_line: number; num_lines: number };
      }>;
      expect(chunks.length).toBeGreaterThan(0);
      const first = chunks[0];
      expect(first.generated_metadata.start_line).toBe(3);
      expect(lines[first.generated_metadata.start_line]).toBe('First real line of the brine notes.');
      for (const ch of chunks) {
        const { start_line, num_lines } = ch.generated_metadata;
        expect(ch.text.startsWith(lines[start_line])).toBe(true);
        expect(ch.text.trimEnd().endsWith(lines[start_line + num_lines - 1])).toBe(true);
      }
      // search results carry the same metadata
      const hits = await c.stores.search({ query: 'brine notes salt', store_identifiers: [storeId], top_k: 5 });
      const hit = hits.data.find((h) => h.file_id === sf.id) as unknown as {
        generated_metadata: { start_line: number };
      };
      expect(hit.generated_metadata.start_line).toBe(3);
    });

    it('an unsupported file fails with last_error.code unsupported_file_type, as the API notes say', async () => {
      const sf = await c.stores.files.uploadAndPoll({
        storeIdentifier: storeId,
        file: await toFile(Buffer.from([0, 1, 2, 3, 255, 254, 0, 0, 7]), 'blob.bin', {
          type: 'application/octet-stream',
        }),
        pollIntervalMs: 100,
      });
      expect(sf.status).toBe('failed');
      expect(sf.last_error).toMatchObject({ code: 'unsupported_file_type', message: expect.any(String) });
      seenCodes.add((sf.last_error as { code: string }).code);
    });
  });

  describe('API notes (docs/api.md)', () => {
    it('lists every error type and ingestion code this suite saw', () => {
      const from = API_NOTES.indexOf('### Error codes');
      expect(from).toBeGreaterThan(0);
      const table = API_NOTES.slice(from, API_NOTES.indexOf('\n## ', from));
      expect([...seenCodes].length).toBeGreaterThanOrEqual(4);
      for (const code of seenCodes) expect([code, table.includes(`\`${code}\``)]).toEqual([code, true]);
      // the store-file paragraph names the code the server answers, and the table no other
      expect(API_NOTES).toMatch(/`last_error: \{message, code\}` with codes\s+`unsupported_file_type`/);
      expect(table).not.toMatch(/`unsupported_file`/);
    });
  });
});

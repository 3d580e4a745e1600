/* eslint-disable @typescript-eslint/no-explicit-any */
import { randomUUID } from 'crypto';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import type { TestLarder } from './in-process-larder';

/** One real answer of the service, filed under the documented operation (`METHOD /path/{template}`). */
export interface Sample {
  operation: string;
  status: number;
  contentType: string;
  body: unknown;
  /** the JSON body sent, if any */
  request?: unknown;
}

type Init = {
  key?: string | null;
  body?: unknown;
  raw?: string;
  form?: FormData;
  headers?: Record<string, string>;
  query?: string;
};

/**
 * Drives every operation of the API once with real requests (and a few error answers), in an order
 * that gives each one something to act on: an organization with a store, files ingested into it, a
 * search rule, uploads, a trace destination (`otlpEndpoint`: a collector that accepts spans), OpenAI
 * vector stores. Returns every answer.
 */
export async function driveEveryOperation(
  t: TestLarder,
  o: { organizationId: string; apiKey: string },
  otlpEndpoint: string,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const call = async (
    method: string,
    template: string,
    params: Record<string, string> = {},
    init: Init = {},
  ): Promise<{ status: number; body: any; headers: Headers }> => {
    const path = template.replace(/\{(\w+)\}/g, (_, k: string) => {
      if (params[k] === undefined) throw new Error(`no value for ${k} in ${template}`);
      return k === 'model' ? params[k] : encodeURIComponent(params[k]);
    });
    const key = init.key === undefined ? o.apiKey : init.key;
    const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...init.headers };
    let body: FormData | string | undefined;
    if (init.form) body = init.form;
    else if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const res = await fetch(`${t.baseURL}${path}${init.query ? `?${init.query}` : ''}`, { method, headers, body });
    const contentType = res.headers.get('content-type') ?? '';
    const text = await res.text();
    const parsed = contentType.includes('application/json') ? (JSON.parse(text) as unknown) : text;
    samples.push({
      operation: `${method} ${template}`,
      status: res.status,
      contentType,
      body: parsed,
      ...(init.body !== undefined ? { request: init.body } : {}),
    });
    return { status: res.status, body: parsed, headers: res.headers };
  };
  const must = async (expected: number, ...args: Parameters<typeof call>) => {
    const r = await call(...args);
    if (r.status !== expected)
      throw new Error(`${args[0]} ${args[1]} answered ${r.status}, not ${expected}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const form = (name: string, text: string, type = 'text/markdown') => {
    const f = new FormData();
    f.append('file', new Blob([text], { type }), name);
    return f;
  };
  const until = async (what: string, read: () => Promise<any>, ok: (b: any) => boolean) => {
    let last: unknown;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      last = await read();
      if (ok(last)) return last;
    }
    throw new Error(`${what} never came; last answer: ${JSON.stringify(last)}`);
  };
  const nobody = randomUUID();

  // the service
  await must(200, 'GET', '/');
  await must(200, 'GET', '/health/live', {}, { key: null });
  await call('GET', '/health/ready', {}, { key: null });
  await must(200, 'GET', '/metrics', {}, { key: null });
  await must(200, 'GET', '/v1/schemas/mxjson', {}, { key: null });
  await must(200, 'GET', '/openapi.json', {}, { key: null });
  await must(200, 'GET', '/docs', {}, { key: null });
  // the console's page (404 until `npm run build` built it)
  await call('GET', '/console', {}, { key: null });

  // API keys
  const key2 = await must(201, 'POST', '/v1/api-keys', {}, { body: { name: 'second' } });
  await must(200, 'GET', '/v1/api-keys', {}, { query: 'limit=10' });
  await must(200, 'GET', '/v1/api-keys/{api_key_id}', { api_key_id: key2.id });
  await must(200, 'PATCH', '/v1/api-keys/{api_key_id}', { api_key_id: key2.id }, { body: { name: 'renamed' } });
  await must(200, 'POST', '/v1/api-keys/{api_key_id}/reroll', { api_key_id: key2.id });
  await must(200, 'POST', '/v1/api-keys/{api_key_id}/revoke', { api_key_id: key2.id });
  await must(200, 'DELETE', '/v1/api-keys/{api_key_id}', { api_key_id: key2.id });

  // files
  const jam = await must(
    201,
    'POST',
    '/v1/files',
    {},
    {
      form: form(
        'jam.md',
        '# Strawberry jam\n\nBoil strawberries with sugar and lemon juice until the jam sets on a cold plate.\n',
      ),
    },
  );
  const spare = await must(201, 'POST', '/v1/files', {}, { form: form('spare.txt', 'A spare file.', 'text/plain') });
  await must(200, 'GET', '/v1/files', {}, { query: 'limit=5&include_total=true' });
  await must(200, 'GET', '/v1/files/{file_id}', { file_id: jam.id });
  await must(200, 'GET', '/v1/files/{file_id}/content', { file_id: jam.id });
  await must(
    200,
    'POST',
    '/v1/files/{file_id}',
    { file_id: spare.id },
    { form: form('spare.txt', 'A spare file, replaced.', 'text/plain') },
  );

  // multipart uploads
  const text = 'Uploaded in one part.';
  const upload = await must(
    201,
    'POST',
    '/v1/files/uploads',
    {},
    { body: { filename: 'part.txt', file_size: text.length, mime_type: 'text/plain', part_count: 1 } },
  );
  const url = new URL(upload.part_urls[0].url, t.baseURL);
  const partTemplate = '/v1/files/uploads/{upload_id}/parts/{part_number}';
  const put = await fetch(`${t.baseURL}${url.pathname}${url.search}`, { method: 'PUT', body: text });
  samples.push({
    operation: `PUT ${partTemplate}`,
    status: put.status,
    contentType: put.headers.get('content-type') ?? '',
    body: await put.json(),
  });
  if (put.status !== 200) throw new Error(`the part upload answered ${put.status}`);
  await must(200, 'GET', '/v1/files/uploads');
  await must(200, 'GET', '/v1/files/uploads/{upload_id}', { upload_id: upload.id });
  await must(
    200,
    'POST',
    '/v1/files/uploads/{upload_id}/complete',
    { upload_id: upload.id },
    { body: { parts: [{ part_number: 1, etag: put.headers.get('etag') }] } },
  );
  const aborted = await must(
    201,
    'POST',
    '/v1/files/uploads',
    {},
    { body: { filename: 'gone.txt', file_size: 10, mime_type: 'text/plain' } },
  );
  await must(200, 'POST', '/v1/files/uploads/{upload_id}/abort', { upload_id: aborted.id });

  // stores and their files
  const store = await must(201, 'POST', '/v1/stores', {}, { body: { name: 'openapi-pantry', description: 'jams' } });
  const s = { store_identifier: store.id };
  await must(200, 'GET', '/v1/stores', {}, { query: 'limit=5' });
  await must(200, 'GET', '/v1/stores/{store_identifier}', s);
  await must(200, 'PUT', '/v1/stores/{store_identifier}', s, { body: { description: 'jams and pickles' } });
  await must(201, 'POST', '/v1/stores/{store_identifier}/files', s, {
    body: { file_id: jam.id, metadata: { shelf: 'lower' } },
  });
  const uploaded = await must(201, 'POST', '/v1/stores/{store_identifier}/files/upload', s, {
    form: form('cellar.txt', 'The cellar stays at eleven degrees in winter.', 'text/plain'),
  });
  const f = { ...s, file_identifier: jam.id };
  await until(
    'ingestion',
    async () => (await call('GET', '/v1/stores/{store_identifier}/files/{file_identifier}', f)).body,
    (b) => b.status === 'completed',
  );
  await until(
    'ingestion',
    async () =>
      (
        await call('GET', '/v1/stores/{store_identifier}/files/{file_identifier}', {
          ...s,
          file_identifier: uploaded.id,
        })
      ).body,
    (b) => b.status === 'completed',
  );
  await must(200, 'GET', '/v1/stores/{store_identifier}/files/{file_identifier}', f, { query: 'return_chunks=true' });
  await must(200, 'GET', '/v1/stores/{store_identifier}/files', s, { query: 'limit=5' });
  await must(200, 'POST', '/v1/stores/{store_identifier}/files/list', s, { body: { limit: 5 } });
  const withUrl = await must(200, 'PATCH', '/v1/stores/{store_identifier}/files/{file_identifier}', f, {
    body: { metadata: { shelf: 'upper' } },
  });
  await must(200, 'GET', '/v1/stores/{store_identifier}/files/{file_identifier}/content', f, {
    key: null,
    query: new URL(withUrl.content_url).search.slice(1),
  });
  const copy = await must(201, 'POST', '/v1/stores/{store_identifier}/copy', s, {
    body: { name: 'openapi-pantry-copy' },
  });

  // search rules
  const rule = await must(201, 'POST', '/v1/stores/{store_identifier}/rules', s, {
    body: {
      query: 'marmalade',
      rules: [
        { type: 'query_string', substitution: 'jam' },
        { type: 'file_search_result', file_id: jam.id, result_index: 0 },
      ],
    },
  });
  const r = { ...s, rule_id: rule.id };
  await must(200, 'GET', '/v1/stores/{store_identifier}/rules/{rule_id}', r);
  await must(200, 'PUT', '/v1/stores/{store_identifier}/rules/{rule_id}', r, {
    body: { query: 'marmalade', rules: rule.rules },
  });
  await must(200, 'DELETE', '/v1/stores/{store_identifier}/rules/{rule_id}/specific', r, {
    body: { rule: rule.rules[1] },
  });
  await must(200, 'DELETE', '/v1/stores/{store_identifier}/rules/{rule_id}', r);

  // search and its relatives
  const query = { query: 'how is jam made', store_identifiers: [store.id], top_k: 3 };
  await must(200, 'POST', '/v1/stores/search', {}, { body: query });
  await must(200, 'POST', '/v1/stores/search', {}, { body: { ...query, stream: true } });
  await must(200, 'POST', '/v1/stores/files/search', {}, { body: query });
  await must(200, 'POST', '/v1/stores/grep', {}, { body: { pattern: 'jam', store_identifiers: [store.id] } });
  await must(200, 'POST', '/v1/stores/list-chunks', {}, { body: { store_identifiers: [store.id] } });
  await must(200, 'POST', '/v1/stores/metadata-facets', {}, { body: { store_identifiers: [store.id] } });
  await must(200, 'POST', '/v1/stores/question-answering', {}, { body: query });
  await must(200, 'POST', '/v1/stores/question-answering', {}, { body: { ...query, stream: true } });
  await must(200, 'POST', '/v1/chat/completions', {}, { body: { messages: [{ role: 'user', content: 'Hello' }] } });
  await must(
    200,
    'POST',
    '/v1/chat/completions',
    {},
    { body: { messages: [{ role: 'user', content: 'Hello' }], stream: true } },
  );
  const response = await must(
    200,
    'POST',
    '/v1/responses',
    {},
    { body: { model: 'any', input: 'Hello', tools: [{ type: 'file_search', vector_store_ids: [store.id] }] } },
  );
  await must(200, 'POST', '/v1/responses', {}, { body: { model: 'any', input: 'Hello', stream: true } });
  await must(200, 'GET', '/v1/responses/{response_id}', { response_id: response.id });
  await must(200, 'GET', '/v1/responses/{response_id}/input_items', { response_id: response.id }, { query: 'limit=5' });
  await must(200, 'DELETE', '/v1/responses/{response_id}', { response_id: response.id });
  const models = await must(200, 'GET', '/v1/models');
  await must(200, 'GET', '/v1/models/{model}', { model: models.data[0].id });
  await must(200, 'POST', '/v1/embeddings', {}, { body: { model: 'default', input: ['strawberry jam'] } });
  await must(200, 'POST', '/v1/reranking', {}, { body: { query: 'jam', input: ['strawberry jam', 'cabbage'] } });

  // activity and billing
  await must(200, 'GET', '/v1/stores/{store_identifier}/events', s, { query: 'event_type=ingestion&limit=5' });
  await must(200, 'POST', '/v1/stores/{store_identifier}/events/histogram', s, { body: {} });
  await must(200, 'GET', '/v1/events', {}, { query: 'event_type=ingestion&limit=5' });
  await must(200, 'GET', '/v1/billing/summary');
  await must(200, 'GET', '/v1/billing/stores');
  await must(200, 'GET', '/v1/billing/stores/{store_id}/costs/histogram', { store_id: store.id });
  await must(200, 'GET', '/v1/billing/parsing/costs/histogram');

  // trace destinations
  const dest = await must(
    201,
    'POST',
    '/v1/trace-destinations',
    {},
    { body: { name: 'collector', kind: 'otlp', otlp: { endpoint: otlpEndpoint } } },
  );
  const d = { trace_destination_id: dest.id };
  await must(200, 'GET', '/v1/trace-destinations');
  await must(200, 'GET', '/v1/trace-destinations/{trace_destination_id}', d);
  await must(200, 'PATCH', '/v1/trace-destinations/{trace_destination_id}', d, { body: { enabled: false } });
  await must(200, 'DELETE', '/v1/trace-destinations/{trace_destination_id}', d);

  // buckets: the list, and refusals (creating one needs a reachable S3 endpoint)
  await must(200, 'GET', '/v1/buckets');
  await must(422, 'POST', '/v1/buckets', {}, { body: { name: 'docs' } });
  await must(404, 'GET', '/v1/buckets/{bucket_id}', { bucket_id: nobody });
  await must(
    404,
    'POST',
    '/v1/buckets/{bucket_id}/credentials',
    { bucket_id: nobody },
    { body: { credentials: { type: 'access_key', access_key_id: 'AKIA', secret_access_key: 'secret' } } },
  );
  await must(404, 'DELETE', '/v1/buckets/{bucket_id}', { bucket_id: nobody });

  // administration (the root key)
  await must(
    200,
    'POST',
    '/v1/admin/stores/{organization_id}/{store_identifier}/reingest',
    { organization_id: o.organizationId, store_identifier: store.id },
    { key: t.rootKey },
  );

  // OpenAI vector stores
  const vs = await must(200, 'POST', '/v1/vector_stores', {}, { body: { name: 'openai-pantry' } });
  const v = { vector_store_id: vs.id };
  await must(200, 'GET', '/v1/vector_stores', {}, { query: 'limit=5' });
  await must(200, 'GET', '/v1/vector_stores/{vector_store_id}', v);
  await must(200, 'POST', '/v1/vector_stores/{vector_store_id}', v, { body: { name: 'openai-pantry-2' } });
  await must(200, 'POST', '/v1/vector_stores/{vector_store_id}/files', v, { body: { file_id: jam.id } });
  const vf = { ...v, file_id: jam.id };
  await until(
    'vector store ingestion',
    async () => (await call('GET', '/v1/vector_stores/{vector_store_id}/files/{file_id}', vf)).body,
    (b) => b.status === 'completed',
  );
  await must(200, 'GET', '/v1/vector_stores/{vector_store_id}/files', v);
  await must(200, 'POST', '/v1/vector_stores/{vector_store_id}/files/{file_id}', vf, {
    body: { attributes: { shelf: 'lower' } },
  });
  await must(200, 'GET', '/v1/vector_stores/{vector_store_id}/files/{file_id}/content', vf);
  const batch = await must(200, 'POST', '/v1/vector_stores/{vector_store_id}/file_batches', v, {
    body: { file_ids: [spare.id] },
  });
  const b = { ...v, batch_id: batch.id };
  await must(200, 'GET', '/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}', b);
  await must(200, 'GET', '/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/files', b);
  await must(200, 'POST', '/v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel', b);
  await must(200, 'POST', '/v1/vector_stores/{vector_store_id}/search', v, { body: { query: 'jam' } });
  await must(200, 'DELETE', '/v1/vector_stores/{vector_store_id}/files/{file_id}', vf);
  await must(200, 'DELETE', '/v1/vector_stores/{vector_store_id}', v);

  // errors: no key, an unknown store, an invalid body, a malformed one (422 json_invalid), a name in use
  await must(401, 'GET', '/v1/stores', {}, { key: null });
  await must(422, 'POST', '/v1/stores', {}, { headers: { 'content-type': 'application/json' }, raw: '{"name": ' });
  await must(409, 'POST', '/v1/stores', {}, { body: { name: store.name } });
  await must(404, 'GET', '/v1/stores/{store_identifier}', { store_identifier: 'no-such-store' });
  await must(422, 'POST', '/v1/stores/search', {}, { body: { store_identifiers: [store.id] } });

  // deletions last
  await must(200, 'DELETE', '/v1/stores/{store_identifier}/files/{file_identifier}', {
    ...s,
    file_identifier: uploaded.id,
  });
  await must(200, 'DELETE', '/v1/stores/{store_identifier}', { store_identifier: copy.id });
  await must(200, 'DELETE', '/v1/files/{file_id}', { file_id: spare.id });
  return samples;
}

/** A stand-in OTLP/HTTP collector: accepts every request (a trace destination is checked when it is stored). */
export async function startCollector(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

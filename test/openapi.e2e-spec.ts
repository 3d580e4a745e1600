/* eslint-disable @typescript-eslint/no-explicit-any */
import { execFileSync } from 'child_process';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startChatCompletionsDouble, ChatCompletionsDouble } from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { driveEveryOperation, Sample, startCollector } from './support/openapi-samples';
import { SdkTypes } from './support/sdk-types';
import { QUERY_PARAMETERS } from '../apps/api/src/http/openapi-parameters';

jest.setTimeout(120_000);

/** The operation ids of upstream's OpenAPI document, for the operations Larder serves. */
const CONTRACT_IDS: Record<string, string> = {
  'GET /': 'info',
  'GET /v1/schemas/mxjson': 'get_mxbai_json_schema',
  'POST /v1/files': 'create_file',
  'GET /v1/files': 'list_files',
  'GET /v1/files/uploads': 'list_multipart_uploads',
  'POST /v1/files/uploads': 'create_multipart_upload',
  'GET /v1/files/uploads/{upload_id}': 'get_multipart_upload',
  'POST /v1/files/uploads/{upload_id}/complete': 'complete_multipart_upload',
  'POST /v1/files/uploads/{upload_id}/abort': 'abort_multipart_upload',
  'GET /v1/files/{file_id}': 'retrieve_file',
  'POST /v1/files/{file_id}': 'update_file',
  'DELETE /v1/files/{file_id}': 'delete_file',
  'GET /v1/files/{file_id}/content': 'download_file',
  'POST /v1/api-keys': 'create_api_key',
  'GET /v1/api-keys': 'list_api_keys',
  'GET /v1/api-keys/{api_key_id}': 'retrieve_api_key',
  'PATCH /v1/api-keys/{api_key_id}': 'update_api_key',
  'DELETE /v1/api-keys/{api_key_id}': 'delete_api_key',
  'POST /v1/api-keys/{api_key_id}/revoke': 'revoke_api_key',
  'POST /v1/api-keys/{api_key_id}/reroll': 'reroll_api_key',
  'GET /v1/billing/summary': 'get_billing_summary',
  'GET /v1/billing/stores': 'list_store_cost_info',
  'GET /v1/billing/stores/{store_id}/costs/histogram': 'get_store_cost_histogram',
  'GET /v1/billing/parsing/costs/histogram': 'get_parsing_cost_histogram',
  'GET /v1/buckets': 'list_buckets',
  'POST /v1/buckets': 'create_bucket',
  'POST /v1/buckets/{bucket_id}/credentials': 'rotate_bucket_credentials',
  'POST /v1/admin/stores/{organization_id}/{store_identifier}/reingest': 'reingest_all_stores',
  'GET /v1/stores/{store_identifier}/events': 'list_store_events',
  'POST /v1/stores/{store_identifier}/events/histogram': 'get_store_event_histogram',
  'POST /v1/stores': 'create_store',
  'GET /v1/stores': 'list_stores',
  'GET /v1/stores/{store_identifier}': 'retrieve_store',
  'PUT /v1/stores/{store_identifier}': 'update_store',
  'DELETE /v1/stores/{store_identifier}': 'delete_store',
  'POST /v1/stores/{store_identifier}/files': 'create_store_file',
  'GET /v1/stores/{store_identifier}/files': 'list_store_files',
  'POST /v1/stores/{store_identifier}/files/upload': 'upload_store_file',
  'POST /v1/stores/{store_identifier}/files/list': 'list_store_files_with_metadata_filter',
  'GET /v1/stores/{store_identifier}/files/{file_identifier}': 'retrieve_store_file',
  'PATCH /v1/stores/{store_identifier}/files/{file_identifier}': 'update_store_file',
  'DELETE /v1/stores/{store_identifier}/files/{file_identifier}': 'delete_store_file',
  'POST /v1/stores/{store_identifier}/rules': 'create_search_rule',
  'GET /v1/stores/{store_identifier}/rules/{rule_id}': 'retrieve_search_rule',
  'PUT /v1/stores/{store_identifier}/rules/{rule_id}': 'update_search_rule',
  'DELETE /v1/stores/{store_identifier}/rules/{rule_id}': 'delete_search_rule',
  'DELETE /v1/stores/{store_identifier}/rules/{rule_id}/specific': 'delete_specific_search_rule',
  'POST /v1/stores/search': 'search_store_chunks',
  'POST /v1/stores/question-answering': 'create_question_answering',
  'POST /v1/chat/completions': 'create_chat_completion',
  'POST /v1/stores/grep': 'grep_store_chunks',
  'POST /v1/stores/list-chunks': 'list_store_chunks',
  'POST /v1/stores/metadata-facets': 'get_metadata_facets',
  'POST /v1/embeddings': 'create_embeddings',
  'POST /v1/reranking': 'rerank',
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** `/v1/stores/:store_identifier` (Express) → `/v1/stores/{store_identifier}` (OpenAPI); `*model` (a wildcard) → `{model}`. */
const template = (expressPath: string) => expressPath.replace(/[:*](\w+)/g, '{$1}');
/** Every `$ref` in a JSON value, with where it is. */
function refs(
  value: unknown,
  at = '#',
  out: Array<{ at: string; ref: string }> = [],
): Array<{ at: string; ref: string }> {
  if (Array.isArray(value)) value.forEach((v, i) => refs(v, `${at}/${i}`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
      else refs(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
    }
  }
  return out;
}
const resolve = (doc: any, ref: string): unknown =>
  ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node: any, key) => (node === undefined ? undefined : node[key]), doc);
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
/** Does a content type answer match a documented media range (`*\/*`, `text/*`, `application/json`)? */
const matches = (range: string, contentType: string) => {
  const [type] = contentType.split(';');
  const [r1, r2] = range.split('/');
  const [t1, t2] = type.trim().toLowerCase().split('/');
  return (r1 === '*' || r1 === t1) && (r2 === '*' || r2 === t2);
};

describe('the OpenAPI document (/v1/schemas/mxjson)', () => {
  let double: ChatCompletionsDouble;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let t: TestLarder;
  let doc: any;
  const operations: Array<{ key: string; path: string; method: string; op: any }> = [];

  beforeAll(async () => {
    double = await startChatCompletionsDouble();
    collector = await startCollector();
    t = await startTestLarder({
      env: {
        LARDER_LLM_URL: double.url,
        LARDER_LLM_MODEL: 'double-model',
        LARDER_OUTBOUND_ALLOW: `127.0.0.1:${collector.port}`,
      },
    });
    doc = await (await fetch(`${t.baseURL}/v1/schemas/mxjson`)).json();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS)
        if (item[method]) operations.push({ key: `${method.toUpperCase()} ${path}`, path, method, op: item[method] });
    }
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
    await collector?.close();
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    // the validator is an ES module: it runs in its own node process
    const script =
      "import { Validator } from '@seriousme/openapi-schema-validator'; import { readFileSync } from 'fs'; const r = await new Validator().validate(JSON.parse(readFileSync(0, 'utf8'))); process.stdout.write(JSON.stringify(r));";
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      input: JSON.stringify(doc),
      cwd: process.cwd(),
      encoding: 'utf8',
    });
    const result = JSON.parse(out);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('has no dangling $ref', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(100);
    const dangling = all.filter(({ ref }) => !ref.startsWith('#/') || resolve(doc, ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('documents every route the server serves, and serves every documented one', async () => {
    // the routes of the Express application under Nest (Nest's controllers and the document's own routes);
    // Swagger UI's assets under /docs/ belong to the documented page /docs
    const stack = t.larder.app.getHttpAdapter().getInstance().router.stack as Array<{
      route?: { path: string; methods: Record<string, boolean> };
    }>;
    const served = new Set<string>();
    for (const layer of stack) {
      if (!layer.route || layer.route.path.startsWith('/docs/')) continue;
      for (const [m, on] of Object.entries(layer.route.methods))
        if (on && m !== '_all') served.add(`${m.toUpperCase()} ${template(layer.route.path)}`);
    }
    // the console is a router mounted at /console (its page, or its JSON 404 when it is not built)
    const consolePage = await fetch(`${t.baseURL}/console`);
    if (/html/.test(consolePage.headers.get('content-type') ?? '') || /console/.test(await consolePage.text()))
      served.add('GET /console');
    expect(served.size).toBeGreaterThan(80);
    const documented = new Set(operations.map((o) => o.key));
    expect([...served].filter((k) => !documented.has(k))).toEqual([]);
    expect([...documented].filter((k) => !served.has(k))).toEqual([]);
  });

  it('gives every operation a stable id, a tag, its parameters, a success schema and its error responses', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const problems: string[] = [];
    for (const { key, path, op } of operations) {
      if (!/^[a-z][a-z0-9_]*$/.test(op.operationId ?? '')) problems.push(`${key}: operationId ${op.operationId}`);
      if (CONTRACT_IDS[key] && CONTRACT_IDS[key] !== op.operationId)
        problems.push(`${key}: operationId ${op.operationId}, the contract's is ${CONTRACT_IDS[key]}`);
      if (!op.tags?.length || !doc.tags.some((tag: any) => tag.name === op.tags[0]))
        problems.push(`${key}: no declared tag`);
      const success = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
      if (success.length !== 1) problems.push(`${key}: success responses ${success.join(',')}`);
      else if (!Object.values<any>(op.responses[success[0]].content ?? {}).some((c) => c.schema))
        problems.push(`${key}: the success answer has no schema`);
      const params = (op.parameters ?? []) as any[];
      for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        if (!params.some((p) => p.in === 'path' && p.name === name && p.required === true && p.schema))
          problems.push(`${key}: path parameter ${name}`);
      }
      if (params.some((p) => !p.schema)) problems.push(`${key}: a parameter without a schema`);
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const errors = Object.keys(op.responses ?? {}).filter((s) => /^[45]\d\d$/.test(s));
      const want = [
        ...(isPublic ? [] : ['401', '403', '503']),
        ...(params.length || op.requestBody ? ['422'] : []),
        ...(path.includes('{') ? ['404'] : []),
        ...(op.requestBody ? ['413'] : []),
      ];
      for (const status of want) if (!errors.includes(status)) problems.push(`${key}: no ${status}`);
      for (const status of errors) {
        const r: any = op.responses[status].$ref ? resolve(doc, op.responses[status].$ref) : op.responses[status];
        const schema = r?.content?.['application/json']?.schema?.$ref;
        if (!schema) problems.push(`${key}: the ${status} answer has no schema`);
        else if (status === '422' && schema !== '#/components/schemas/ValidationError')
          problems.push(`${key}: 422 is ${schema}`);
        else if (!['422', '503'].includes(status) && schema !== '#/components/schemas/Error')
          problems.push(`${key}: ${status} is ${schema}`);
      }
    }
    expect(problems).toEqual([]);
    // the security scheme, public routes, the tool-ticket header, deprecation and multipart bodies
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ ApiKeyAuth: [] }]);
    const at = (key: string) => operations.find((o) => o.key === key)!.op;
    for (const key of [
      'GET /health/live',
      'GET /health/ready',
      'GET /metrics',
      'GET /v1/schemas/mxjson',
      'GET /openapi.json',
      'GET /docs',
      'GET /console',
      'PUT /v1/files/uploads/{upload_id}/parts/{part_number}',
    ])
      expect(at(key).security).toEqual([]);
    expect(at('GET /v1/stores').security).toBeUndefined();
    const ticketed = operations
      .filter((o) => o.op.parameters.some((p: any) => p.in === 'header' && p.name === 'X-Mxbai-Tool-Ticket'))
      .map((o) => o.key);
    expect(ticketed.sort()).toEqual(['POST /v1/stores/grep', 'POST /v1/stores/search']);
    expect(at('POST /v1/stores/search').parameters.find((p: any) => p.in === 'header').required).toBe(false);
    expect(operations.filter((o) => o.op.deprecated).map((o) => o.key)).toEqual([
      'GET /v1/stores/{store_identifier}/files',
    ]);
    expect(at('POST /v1/files').requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
    expect(
      at('POST /v1/stores/{store_identifier}/files/upload').requestBody.content['multipart/form-data'],
    ).toBeDefined();
    // the query parameters written for a DTO are exactly its properties (a new property must be described)
    for (const [dto, params] of Object.entries(QUERY_PARAMETERS)) {
      expect({ dto, names: params.map((p) => p.name).sort() }).toEqual({
        dto,
        names: Object.keys(doc.components.schemas[dto].properties).sort(),
      });
    }
    // path parameters bound with UuidParam are UUIDs
    expect(at('GET /v1/files/{file_id}').parameters[0]).toMatchObject({
      name: 'file_id',
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    });
    expect(at('GET /v1/stores/{store_identifier}').parameters[0].schema).toEqual({ type: 'string' });
    // query parameters come from the handlers' DTOs, with their constraints
    expect(at('GET /v1/files').parameters.find((p: any) => p.name === 'limit')).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(
      at('GET /v1/stores/{store_identifier}/events').parameters.find((p: any) => p.name === 'event_type'),
    ).toMatchObject({
      in: 'query',
      required: true,
      schema: { enum: expect.arrayContaining(['ingestion']) },
    });
    expect(
      at('GET /v1/stores/{store_identifier}/files/{file_identifier}/content').parameters.map((p: any) => p.name),
    ).toEqual(['store_identifier', 'file_identifier', 'expires', 'signature']);
  });

  it("names every field of the official SDK's response types, and requires those the SDK requires", () => {
    // the document's schema (allOf merged) → the SDK's declared type of the same answer
    const flat = (schema: any): { properties: Record<string, unknown>; required: string[] } => {
      if (schema.$ref) return flat(resolve(doc, schema.$ref));
      const parts = (schema.allOf ?? []).map(flat);
      return {
        properties: Object.assign({}, schema.properties, ...parts.map((p: any) => p.properties)),
        required: [...(schema.required ?? []), ...parts.flatMap((p: any) => p.required)],
      };
    };
    // two programs: the stores' files module has names the others have too (FileDeleteResponse)
    const pairs: Array<[string[], Record<string, string>]> = [
      [
        [
          'resources/api-keys.d.ts',
          'resources/files/files.d.ts',
          'resources/files/uploads.d.ts',
          'resources/stores/stores.d.ts',
          'resources/top-level.d.ts',
        ],
        {
          ApiKey: 'APIKey',
          ApiKeyCreated: 'APIKeyCreated',
          ApiKeyDeleted: 'APIKeyDeleteResponse',
          FileObject: 'FileObject',
          FileDeleted: 'FileDeleteResponse',
          MultipartUploadCreated: 'UploadCreateResponse',
          MultipartUploadDetail: 'UploadRetrieveResponse',
          MultipartUploadList: 'UploadListResponse',
          Store: 'Store',
          StoreDeleted: 'StoreDeleteResponse',
          ScoredChunk: 'ScoredTextInputChunk',
          StoreSearchResponse: 'StoreSearchResponse',
          ScoredChunkList: 'StoreGrepResponse',
          MetadataFacets: 'StoreMetadataFacetsResponse',
          StoreQAResults: 'StoreQuestionAnsweringResponse',
          EmbeddingResponse: 'EmbeddingCreateResponse',
          RerankResponse: 'RerankResponse',
          InfoResponse: 'InfoResponse',
        },
      ],
      [['resources/stores/files.d.ts'], { StoreFile: 'StoreFile', StoreFileDeleted: 'FileDeleteResponse' }],
    ];
    const problems: string[] = [];
    let checked = 0;
    for (const [files, map] of pairs) {
      const sdk = new SdkTypes(files);
      for (const [ours, theirs] of Object.entries(map)) {
        const schema = flat({ $ref: `#/components/schemas/${ours}` });
        for (const p of sdk.properties(theirs)) {
          checked++;
          if (!(p.name in schema.properties))
            problems.push(`${ours}.${p.name}: declared by the SDK's ${theirs}, not by the document`);
          else if (!p.optional && !schema.required.includes(p.name))
            problems.push(`${ours}.${p.name}: required by the SDK's ${theirs}, optional in the document`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  describe('real answers', () => {
    let samples: Sample[];
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);

    beforeAll(async () => {
      ajv.addSchema(doc, 'openapi.json');
      samples = await driveEveryOperation(t, await t.newOrganization('openapi'), collector.url);
    });

    it('answered requests whose JSON bodies the documented request schemas accept', () => {
      const problems: string[] = [];
      let checked = 0;
      for (const s of samples) {
        if (s.request === undefined || s.status >= 400) continue;
        const o = operations.find((x) => x.key === s.operation)!;
        if (!o.op.requestBody?.content?.['application/json']) {
          problems.push(`${s.operation}: takes a JSON body the document does not describe`);
          continue;
        }
        const validate = ajv.getSchema(
          `openapi.json${pointer('#', 'paths', o.path, o.method, 'requestBody', 'content', 'application/json', 'schema')}`,
        )!;
        checked++;
        if (!validate(s.request))
          problems.push(
            `${s.operation}: ${JSON.stringify(s.request).slice(0, 200)}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`,
          );
      }
      expect(problems).toEqual([]);
      expect(checked).toBeGreaterThan(30);
    });

    it('are sampled for every documented operation', () => {
      const sampled = new Set(samples.map((s) => s.operation));
      expect(operations.map((o) => o.key).filter((k) => !sampled.has(k))).toEqual([]);
      expect(samples.filter((s) => s.status >= 400).map((s) => s.status)).toEqual(
        expect.arrayContaining([401, 404, 422]),
      );
    });

    it('each match the documented response of their status: content type and JSON schema', () => {
      const problems: string[] = [];
      for (const s of samples) {
        const o = operations.find((x) => x.key === s.operation);
        if (!o) {
          problems.push(`${s.operation}: not documented`);
          continue;
        }
        let response = o.op.responses[String(s.status)];
        let base = pointer('#', 'paths', o.path, o.method, 'responses', String(s.status));
        if (!response) {
          problems.push(`${s.operation}: ${s.status} is not documented`);
          continue;
        }
        if (response.$ref) {
          base = response.$ref;
          response = resolve(doc, response.$ref);
        }
        const range = Object.keys(response.content ?? {}).find((r) => matches(r, s.contentType));
        if (!range) {
          problems.push(
            `${s.operation} ${s.status}: ${s.contentType} is none of ${Object.keys(response.content ?? {}).join(', ')}`,
          );
          continue;
        }
        if (!range.includes('json')) continue;
        const validate = ajv.getSchema(`openapi.json${base}/content/${pointer(range)}/schema`);
        if (!validate) {
          problems.push(`${s.operation} ${s.status}: no schema at ${base}`);
          continue;
        }
        if (!validate(s.body))
          problems.push(`${s.operation} ${s.status}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`);
      }
      expect(problems).toEqual([]);
      // the schemas mean something: an answer that lacks a field or has one of the wrong type fails
      const store = samples.find((s) => s.operation === 'GET /v1/stores/{store_identifier}' && s.status === 200)!
        .body as any;
      const storeSchema = ajv.getSchema('openapi.json#/components/schemas/Store')!;
      expect(storeSchema(store)).toBe(true);
      expect(storeSchema({ ...store, id: undefined })).toBe(false);
      expect(storeSchema({ ...store, file_counts: { ...store.file_counts, total: '1' } })).toBe(false);
      expect(
        ajv.getSchema('openapi.json#/components/schemas/ValidationError')!({
          error: { message: 'x', code: 422, type: 'x' },
          message: 'x',
        }),
      ).toBe(false);
      // the streamed answer and the downloads were sampled in their own media types
      expect(
        samples.find((s) => s.operation === 'POST /v1/stores/search' && s.contentType.startsWith('text/event-stream')),
      ).toBeDefined();
      expect(samples.find((s) => s.operation === 'GET /v1/files/{file_id}/content')!.contentType).toMatch(
        /^application\/octet-stream/,
      );
    });
  });
});

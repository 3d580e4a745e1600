import { gzipSync } from 'zlib';
import fc from 'fast-check';
import { anyJson, anyObject, Hints, oddString, Schema, SchemaArbitraries } from './fuzz-schema';

/** One HTTP request as it goes on the wire, with what was done to it. */
export interface FuzzRequest {
  /** `METHOD /path/{param}` of the operation */
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** how it was made: `valid`, or the mutations applied (`body:wrong_type`, `path:bad_escape`, `auth:garbage`, …) */
  labels: string[];
  /**
   * A success would cross tenants: a path parameter names another organization's resource with the
   * fixture's key, or the fixture's resource with the other organization's key or the root key (the
   * operator acts on other organizations only through the admin routes; public routes aside).
   */
  crossTenant: boolean;
  /** A success would leak scope: the read-only (`read` on stores) key on a route that writes. */
  needsWriteScope: boolean;
}

/** One operation of the OpenAPI document, with what the document leaves out filled in from SUPPLEMENTS. */
export interface FuzzOperation {
  /** the document's operationId */
  id: string;
  /** `METHOD /path/{param}` */
  route: string;
  method: string;
  path: string;
  pathParams: string[];
  headerParams: string[];
  query: Schema | null;
  body: { kind: 'json'; schema: Schema } | { kind: 'multipart' } | { kind: 'raw' } | null;
  public: boolean;
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        parameters?: Array<{ name: string; in: string }>;
        requestBody?: { content?: Record<string, { schema?: Schema }> };
      }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
}

// ---------------------------------------------------------------------------------------------------------------------
// What the service's OpenAPI document does not describe (it has no query parameters, no multipart bodies, and bodies
// parsed by hand in two routes), written here from the controllers so every route gets inputs of the right shape.
// ---------------------------------------------------------------------------------------------------------------------

const ACTIVITY_QUERY = (kinds: string[], withStore: boolean): Schema => ({
  type: 'object',
  required: ['event_type'],
  properties: {
    event_type: { enum: kinds },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    filter_before: { type: 'string', format: 'date-time' },
    filter_after: { type: 'string', format: 'date-time' },
    include_total: { type: 'boolean' },
    after: { type: 'string' },
    before: { type: 'string' },
    ...(withStore ? { store_identifier: { type: 'string' } } : {}),
  },
});
const STATUSES = ['pending', 'in_progress', 'cancelled', 'completed', 'failed'];

const SIGNED_QUERY: Schema = {
  type: 'object',
  properties: {
    expires: { type: 'integer', minimum: 0, maximum: 4102444800 },
    signature: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
};
const STORE = '/v1/stores/{store_identifier}';
const PART = 'PUT /v1/files/uploads/{upload_id}/parts/{part_number}';
const STORE_FILE_CONTENT = `GET ${STORE}/files/{file_identifier}/content`;

/**
 * Query parameters per route (`METHOD /path`, stable across controller renames): a component of the
 * document by name where it describes the query well, else a schema written from the controller.
 */
const QUERY: Record<string, string | Schema> = {
  'GET /v1/stores': 'ListStoresRequestDto',
  'GET /v1/files': 'ListFilesRequestDto',
  'GET /v1/api-keys': 'ListApiKeysRequestDto',
  [`GET ${STORE}/files`]: {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      after: { type: 'string' },
      before: { type: 'string' },
      include_total: { type: 'boolean' },
      statuses: { type: 'array', items: { enum: STATUSES } },
    },
  },
  [`GET ${STORE}/files/{file_identifier}`]: {
    type: 'object',
    properties: {
      return_chunks: {
        oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer', minimum: 0, maximum: 20 } }],
      },
    },
  },
  [STORE_FILE_CONTENT]: SIGNED_QUERY,
  [PART]: SIGNED_QUERY,
  [`GET ${STORE}/events`]: ACTIVITY_QUERY(['ingestion', 'search', 'agentic_search', 'grep'], false),
  'GET /v1/events': ACTIVITY_QUERY(['ingestion', 'search', 'agentic_search', 'grep', 'qa', 'completion'], true),
  'POST /v1/admin/stores/{organization_id}/{store_identifier}/reingest': {
    type: 'object',
    properties: { statuses: { type: 'array', items: { enum: STATUSES } }, billable: { type: 'boolean' } },
  },
};

const RULE_ENTRY: Schema = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'substitution'],
      properties: {
        type: { const: 'query_string' },
        substitution: { type: 'string' },
        query: { type: 'string', minLength: 1 },
      },
    },
    {
      type: 'object',
      required: ['type', 'pattern', 'replacement'],
      properties: {
        type: { const: 'query_regex' },
        pattern: { type: 'string', minLength: 1, maxLength: 16 },
        replacement: { type: 'string' },
        flags: { type: 'array', items: { enum: ['i', 'm', 's'] } },
      },
    },
    {
      type: 'object',
      required: ['type', 'file_id', 'chunk_index', 'result_index'],
      properties: {
        type: { const: 'chunk_search_result' },
        file_id: { type: 'string', format: 'uuid' },
        chunk_index: { type: 'integer', minimum: 0, maximum: 5 },
        result_index: { type: 'integer', minimum: 0, maximum: 5 },
        store_id: { type: 'string' },
      },
    },
    {
      type: 'object',
      required: ['type', 'file_id', 'result_index'],
      properties: {
        type: { const: 'file_search_result' },
        file_id: { type: 'string', format: 'uuid' },
        result_index: { type: 'integer', minimum: 0, maximum: 5 },
      },
    },
  ],
};

/** JSON bodies the document does not describe, or describes too loosely (or wrongly) to reach the code behind the first check. */
const BODY: Record<string, Schema> = {
  [`POST ${STORE}/events/histogram`]: {
    type: 'object',
    properties: {
      start_time: { type: 'string', format: 'date-time' },
      end_time: { type: 'string', format: 'date-time' },
      bucket_seconds: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      event_types: { type: 'array', items: { enum: ['ingestion', 'search', 'agentic_search', 'grep'] } },
    },
  },
  [`POST ${STORE}/rules`]: {
    type: 'object',
    required: ['query', 'rules'],
    properties: {
      query: { type: 'string', minLength: 1 },
      rules: { type: 'array', items: RULE_ENTRY, minItems: 1, maxItems: 3 },
    },
  },
  [`PUT ${STORE}/rules/{rule_id}`]: {
    type: 'object',
    properties: { query: { type: 'string', minLength: 1 }, rules: { type: 'array', items: RULE_ENTRY, maxItems: 3 } },
  },
  [`DELETE ${STORE}/rules/{rule_id}/specific`]: {
    type: 'object',
    required: ['rule'],
    properties: { rule: RULE_ENTRY },
  },
};

/**
 * The document's DTO schemas point some nested properties at `#/components/schemas/Object` or `Array`, which
 * it does not define (class-validator-jsonschema on `@ValidateNested` without a type); these are the DTOs meant.
 */
const DANGLING_REFS: Record<string, string> = {
  'CreateApiKeyRequestDto.scope': 'ScopeDto',
  'CompleteUploadRequestDto.parts': 'UploadPartDto',
  'AddStoreFileRequestDto.config': 'StoreFileConfigDto',
  'CreateStoreRequestDto.config': 'StoreConfigDto',
  'CreateStoreRequestDto.expires_after': 'ExpiresAfterDto',
  'UpdateStoreRequestDto.expires_after': 'ExpiresAfterDto',
};

/** The document's component schemas with the dangling references above pointed at their DTOs. */
export function componentsOf(doc: OpenApiDocument): Record<string, Schema> {
  const components = structuredClone(doc.components?.schemas ?? {});
  for (const [at, target] of Object.entries(DANGLING_REFS)) {
    const [schema, prop] = at.split('.');
    const p = components[schema]?.properties?.[prop];
    if (!p || !components[target]) continue;
    const holder = p.items ?? p;
    if (holder.$ref && !components[holder.$ref.replace('#/components/schemas/', '')])
      holder.$ref = `#/components/schemas/${target}`;
  }
  return components;
}

const MULTIPART = new Set(['POST /v1/files', 'POST /v1/files/{file_id}', `POST ${STORE}/files/upload`]);
const RAW = new Set([PART]);
/** Routes a client reaches without an API key (the document marks every route as bearer-secured). */
const PUBLIC = new Set(['GET /', 'GET /health/live', 'GET /health/ready', PART, STORE_FILE_CONTENT]);
/** Routes that destroy what they name: they only get the throwaway pool's ids. */
const DESTRUCTIVE = (route: string) => route.startsWith('DELETE ') || /\/(revoke|reroll|abort|complete)$/.test(route);
/** POST routes that only read (searches, listings, histograms). */
const READ_ONLY_POSTS = new Set([
  'POST /v1/stores/search',
  'POST /v1/stores/files/search',
  'POST /v1/stores/grep',
  'POST /v1/stores/list-chunks',
  'POST /v1/stores/metadata-facets',
  `POST ${STORE}/files/list`,
  `POST ${STORE}/events/histogram`,
]);
/** The operator (root key) acts on other organizations through these routes only. */
const ADMIN = (route: string) => route.includes(' /v1/admin/');

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDocument): FuzzOperation[] {
  const ops: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const route = `${method.toUpperCase()} ${path}`;
      const params = op.parameters ?? [];
      const documented = op.requestBody?.content?.['application/json']?.schema;
      const query = QUERY[route];
      ops.push({
        id: op.operationId ?? route,
        route,
        method: method.toUpperCase(),
        path,
        // from the template: the document leaves out parameters bound as one DTO (`@Param() p: SomeDto`)
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        headerParams: params.filter((p) => p.in === 'header').map((p) => p.name),
        query: typeof query === 'string' ? { $ref: `#/components/schemas/${query}` } : (query ?? null),
        body: MULTIPART.has(route)
          ? { kind: 'multipart' }
          : RAW.has(route)
            ? { kind: 'raw' }
            : BODY[route]
              ? { kind: 'json', schema: BODY[route] }
              : documented
                ? { kind: 'json', schema: documented }
                : null,
        public: PUBLIC.has(route),
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------------------------------
// The fixture: real resources so that a share of requests reaches the code behind "not found".
// ---------------------------------------------------------------------------------------------------------------------

export interface ResourcePool {
  stores: Array<{ id: string; name: string }>;
  files: string[];
  rules: Array<{ storeId: string; id: string }>;
  uploads: string[];
  apiKeys: string[];
}

export interface FuzzFixture {
  organizationId: string;
  otherOrganizationId: string;
  keys: { main: string; scoped: string; otherOrganization: string; revoked: string; root: string };
  /** Resources any request may use, deletes excepted. */
  stable: ResourcePool;
  /** Resources deletes, revokes, rerolls and aborts may use (never the key the suite authenticates with). */
  throwaway: ResourcePool;
  /** Another organization's resources: the fixture's key must never act on them. */
  other: ResourcePool;
  /** Signed URLs the service handed out (part uploads, store-file content) by route, as path parameters + query. */
  signed: Record<string, Array<{ params: Record<string, string>; query: Record<string, string> }>>;
}

type Tagged = { value: string; tag: string; cross?: boolean };

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes %ED%xx%xx instead of throwing. */
export function enc(s: string): string {
  return s
    .split(/([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/)
    .map((part) =>
      part.length === 1 && /[\ud800-\udfff]/.test(part)
        ? Buffer.from([0xed, 0xa0 | ((part.charCodeAt(0) >> 6) & 0x1f), 0x80 | (part.charCodeAt(0) & 0x3f)])
            .toString('hex')
            .replace(/../g, '%$&')
            .toUpperCase()
        : encodeURIComponent(part),
    )
    .join('');
}

function pathParam(name: string, op: FuzzOperation, fx: FuzzFixture): fc.Arbitrary<Tagged> {
  const own = DESTRUCTIVE(op.route) ? [fx.throwaway] : [fx.stable, fx.throwaway];
  const pick = (pools: ResourcePool[], f: (p: ResourcePool) => string[]) => pools.flatMap(f);
  const real = (pools: ResourcePool[]): string[] => {
    switch (name) {
      case 'store_identifier':
        return pick(pools, (p) => p.stores.flatMap((s) => [s.id, s.name]));
      case 'store_id':
        return pick(pools, (p) => p.stores.map((s) => s.id));
      case 'file_id':
      case 'file_identifier':
        return pick(pools, (p) => p.files);
      case 'rule_id':
        return pick(pools, (p) => p.rules.map((r) => r.id));
      case 'upload_id':
        return pick(pools, (p) => p.uploads);
      case 'api_key_id':
        return pick(pools, (p) => p.apiKeys);
      case 'organization_id':
        return pools.includes(fx.other) ? [fx.otherOrganizationId] : [fx.organizationId];
      case 'part_number':
        return ['1', '2', '3', '10000'];
      case 'model':
        return [...SERVED_MODELS];
      default:
        return [];
    }
  };
  const mine = real(own);
  // part numbers and models are no organization's resources
  const theirs = name === 'part_number' || name === 'model' ? [] : real([fx.other]);
  const alts: Array<{ weight: number; arbitrary: fc.Arbitrary<Tagged> }> = [
    { weight: 1, arbitrary: fc.uuid().map((value) => ({ value, tag: 'random_uuid' })) },
    {
      weight: 1,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 30 })
        .map((s) => ({ value: encodeURIComponent(s), tag: 'string' })),
    },
    {
      weight: 1,
      arbitrary: oddString(30)
        .filter((s) => s.length > 0)
        .map((s) => ({ value: enc(s), tag: 'odd_unicode' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '%',
          '%zz',
          '%E0%A4%A',
          '%00',
          'a%00b',
          '%2F',
          '%2f..%2f',
          '%25',
          '%2525',
          '%C0%AF',
          '%FF',
          '%ED%A0%80',
          '%u0041',
          '%%',
          '..',
          '.',
          '%2e%2e',
          '%20',
          '+',
          '%0d%0a',
          '%3Fx%3D1',
          '%23frag',
        )
        .map((value) => ({ value, tag: 'bad_escape' })),
    },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 5000 }).map((n) => ({ value: 'x'.repeat(n), tag: 'huge' })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('-1', '0', '99999999999999999999', '1e3', '0x10', ' 1', 'null', 'undefined', 'true', '[]', '{}')
        .map((value) => ({ value: encodeURIComponent(value), tag: 'odd_scalar' })),
    },
  ];
  if (mine.length)
    alts.push({
      weight: 10,
      arbitrary: fc.constantFrom(...mine).map((v) => ({ value: encodeURIComponent(v), tag: 'real' })),
    });
  if (theirs.length)
    alts.push({
      weight: 2,
      arbitrary: fc
        .constantFrom(...theirs)
        .map((v) => ({ value: encodeURIComponent(v), tag: 'other_org', cross: true })),
    });
  if (name !== 'part_number' && mine.length) {
    // a real id with its case changed or a character cut: near misses
    alts.push({
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...mine), fc.boolean()).map(([v, upper]) => ({
        value: encodeURIComponent(upper ? v.toUpperCase() : v.slice(0, -1)),
        tag: 'near_miss',
      })),
    });
  }
  return fc.oneof(...alts);
}

// ---------------------------------------------------------------------------------------------------------------------
// Mutations of a valid JSON value
// ---------------------------------------------------------------------------------------------------------------------

type Path = Array<string | number>;

function pathsOf(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (v && typeof v === 'object' && out.length < 200)
    for (const [k, c] of Object.entries(v)) pathsOf(c, [...at, Array.isArray(v) ? Number(k) : k], out);
  return out;
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (!path.length) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  node[path[path.length - 1]] = value;
  return copy;
}

function removeAt(root: unknown, path: Path): unknown {
  if (!path.length) return undefined;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  if (Array.isArray(node)) node.splice(Number(path[path.length - 1]), 1);
  else delete node[path[path.length - 1]];
  return copy;
}

/** Raw JSON text for values JSON.stringify cannot make: a string placeholder replaced after serialization. */
const RAW_TOKENS: Record<string, (n: number) => string> = {
  DEEP_OBJECT: (n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n),
  DEEP_ARRAY: (n) => '['.repeat(n) + ']'.repeat(n),
  NUMBER: (n) =>
    [
      '1e400',
      '-1e400',
      '123456789012345678901234567890',
      '-0',
      '1e-400',
      '0.0000000000000000000001',
      '9007199254740993',
      '1E2',
      '-9223372036854775809',
    ][n % 9],
};
const rawToken = (kind: keyof typeof RAW_TOKENS, n: number) => `\u0001RAW:${kind}:${n}\u0001`;

export function serialize(value: unknown): string {
  return (JSON.stringify(value) ?? '').replace(/"\\u0001RAW:(\w+):(\d+)\\u0001"/g, (_m, kind: string, n: string) =>
    RAW_TOKENS[kind](Number(n)),
  );
}

const otherType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  oddString(12),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constant([{ a: 1 }]),
);

interface Mutation {
  label: string;
  apply: (value: unknown) => fc.Arbitrary<unknown>;
}

const anywhere = (value: unknown, f: (at: Path, current: unknown) => fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => {
  const paths = pathsOf(value);
  return fc.constantFrom(...paths).chain((p) =>
    f(
      p,
      p.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], value),
    ),
  );
};

function mutations(schema: Schema | null, resolve: (s: Schema) => Schema | null): Mutation[] {
  const s = schema ? resolve(schema) : null;
  const props = Object.keys(s?.properties ?? {});
  const list: Mutation[] = [
    { label: 'wrong_type', apply: (v) => anywhere(v, (at) => otherType.map((x) => setAt(v, at, x))) },
    {
      label: 'extra_fields',
      apply: (v) =>
        fc
          .tuple(
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'organization_id', 'object', 'x'),
            anyJson(2),
          )
          .map(([k, x]) =>
            v && typeof v === 'object' && !Array.isArray(v)
              ? { ...v, [k]: x, ['extra_' + k]: x }
              : { value: v, [k]: x },
          ),
    },
    {
      label: 'null_or_empty',
      apply: (v) => anywhere(v, (at) => fc.constantFrom(null, '', {}, [], 0, false).map((x) => setAt(v, at, x))),
    },
    {
      label: 'nul',
      apply: (v) =>
        anywhere(v, (at, cur) =>
          fc.constant(
            typeof cur === 'string'
              ? setAt(v, at, cur + '\u0000' + cur)
              : cur && typeof cur === 'object' && !Array.isArray(cur)
                ? setAt(v, at, { ...cur, 'k\u0000': 'v' })
                : setAt(v, at, 'nul\u0000here'),
          ),
        ),
    },
    { label: 'odd_unicode', apply: (v) => anywhere(v, (at) => oddString(40).map((x) => setAt(v, at, x))) },
    {
      label: 'huge_string',
      apply: (v) =>
        anywhere(v, (at) =>
          fc
            .constantFrom(300, 5_000, 70_000, 600_000, 1_100_000)
            .map((n) => setAt(v, at, 'é'.repeat(Math.ceil(n / 2)))),
        ),
    },
    {
      label: 'deep_nesting',
      apply: (v) =>
        anywhere(v, (at) =>
          fc
            .tuple(
              fc.constantFrom<keyof typeof RAW_TOKENS>('DEEP_OBJECT', 'DEEP_ARRAY'),
              fc.constantFrom(9, 17, 33, 200, 5000, 50_000),
            )
            .map(([k, n]) => setAt(v, at, rawToken(k, n))),
        ),
    },
    {
      label: 'number_out_of_range',
      apply: (v) =>
        anywhere(v, (at) =>
          fc
            .oneof(
              fc.constantFrom(-1, 0, -0, 1.5, 2 ** 31, 2 ** 53 + 2, 1e21, -1e308, Number.MAX_VALUE, Number.MIN_VALUE),
              fc.integer({ min: 0, max: 8 }).map((n) => rawToken('NUMBER', n)),
            )
            .map((x) => setAt(v, at, x)),
        ),
    },
    { label: 'array_for_object', apply: (v) => anywhere(v, (at, cur) => fc.constant(setAt(v, at, [cur, cur]))) },
    { label: 'not_an_object', apply: () => fc.constantFrom<unknown>([], [{}], 'text', 42, null, true, [[[]]]) },
  ];
  const required = s?.required ?? [];
  if (required.length)
    list.push({
      label: 'missing_required',
      apply: (v) =>
        fc.subarray(required, { minLength: 1 }).map((ks) => {
          let x = v;
          for (const k of ks) x = removeAt(x, [k]);
          return x;
        }),
    });
  list.push({ label: 'drop_field', apply: (v) => anywhere(v, (at) => fc.constant(removeAt(v, at) ?? {})) });
  if (props.includes('filters')) {
    list.push({
      label: 'huge_in_list',
      apply: (v) =>
        fc
          .tuple(fc.constantFrom(1025, 5_000, 60_000), fc.constantFrom('in', 'not_in'), fc.boolean(), fc.boolean())
          .map(([n, operator, nested, numbers]) => {
            const values = Array.from({ length: n }, (_, i) => (numbers ? i : `value-${i}`));
            const condition = { key: 'kind', operator, value: values };
            return { ...(v as object), filters: nested ? { all: [condition, { any: [condition] }] } : condition };
          }),
    });
    list.push({
      label: 'wide_filter',
      apply: (v) =>
        fc.constantFrom(257, 3_000).map((n) => ({
          ...(v as object),
          filters: { any: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, operator: 'eq', value: i })) },
        })),
    });
    list.push({
      label: 'bad_operator',
      apply: (v) =>
        fc
          .tuple(oddString(10), anyJson(1))
          .map(([operator, value]) => ({ ...(v as object), filters: { key: 'kind', operator, value } })),
    });
  }
  if (props.includes('file_ids'))
    list.push({
      label: 'huge_id_list',
      apply: (v) =>
        fc.constantFrom(1001, 20_000).map((n) => ({
          ...(v as object),
          file_ids: Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
        })),
    });
  if (props.includes('store_identifiers'))
    list.push({
      label: 'many_stores',
      apply: (v) =>
        fc
          .constantFrom(17, 101, 5_000)
          .map((n) => ({ ...(v as object), store_identifiers: Array.from({ length: n }, (_, i) => `store-${i}`) })),
    });
  if (props.includes('metadata'))
    list.push({
      label: 'metadata_limits',
      apply: (v) =>
        fc
          .constantFrom(257, 5_000)
          .chain((n) =>
            fc.constantFrom(
              { ...(v as object), metadata: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) },
              { ...(v as object), metadata: { big: 'm'.repeat(n * 20) } },
              { ...(v as object), metadata: rawToken('DEEP_OBJECT', 9) },
            ),
          ),
    });
  return list;
}

// ---------------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------------

type BodyPart = { body?: Buffer; headers: Record<string, string>; labels: string[] };

const JSON_TYPE = 'application/json';
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.larder+json',
  'multipart/form-data',
  'multipart/form-data; boundary=zzz',
  '*/*',
  'application/xml',
  'APPLICATION/JSON',
  'a/b/c;;;',
  'application/jsonx',
  '',
];

function authHeader(fx: FuzzFixture): fc.Arbitrary<{ value: string | null; tag: string }> {
  return fc.oneof(
    { weight: 60, arbitrary: fc.constant({ value: `Bearer ${fx.keys.main}`, tag: 'main' }) },
    { weight: 3, arbitrary: fc.constant({ value: null, tag: 'auth:missing' }) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          'Bearer',
          'Bearer ',
          'Bearer  ',
          'bearer',
          'Basic dXNlcjpwYXNz',
          'Token abc',
          'Bearer lrd_',
          `${fx.keys.main}`,
          `bearer ${fx.keys.main}`,
          `Bearer  ${fx.keys.main}`,
          `Bearer ${fx.keys.main} extra`,
          `Bearer ${fx.keys.main}x`,
          `Bearer ${fx.keys.main.slice(0, -1)}`,
          'Bearer \u00ff\u00fe',
          `Bearer ${'a'.repeat(3000)}`,
          'Bearer null',
          'Bearer undefined',
        )
        .map((value) => ({ value, tag: 'auth:garbage' })),
    },
    {
      weight: 2,
      arbitrary: fc
        .string({ maxLength: 60 })
        .map((s) => ({ value: `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}`, tag: 'auth:garbage' })),
    },
    { weight: 2, arbitrary: fc.constant({ value: `Bearer ${fx.keys.revoked}`, tag: 'auth:revoked' }) },
    { weight: 3, arbitrary: fc.constant({ value: `Bearer ${fx.keys.scoped}`, tag: 'auth:scoped' }) },
    { weight: 3, arbitrary: fc.constant({ value: `Bearer ${fx.keys.otherOrganization}`, tag: 'auth:other_org' }) },
    { weight: 2, arbitrary: fc.constant({ value: `Bearer ${fx.keys.root}`, tag: 'auth:root' }) },
  );
}

function encodeQuery(q: unknown): string {
  if (!q || typeof q !== 'object' || Array.isArray(q)) return `q=${enc(JSON.stringify(q) ?? '')}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    const one = (x: unknown) =>
      parts.push(`${enc(k)}=${enc(typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x))}`);
    if (Array.isArray(v)) v.forEach(one);
    else one(v);
  }
  return parts.join('&');
}

const rawQueries = fc.constantFrom(
  'limit=abc',
  'limit=1e309',
  'limit=-1',
  'limit=0',
  'limit=101',
  'limit=1&limit=2',
  'limit[]=1',
  'limit[a]=1',
  'after=%zz',
  'q=%00',
  'q=a%00b',
  '%=%',
  'include_total=maybe',
  'include_total=1',
  '__proto__=x',
  'constructor[prototype][x]=1',
  'after=not-a-cursor',
  'before=eyJ9',
  'after=eyJjIjoiMjAyMCJ9',
  'after=' + 'A'.repeat(3000),
  'q=' + 'q'.repeat(300),
  'statuses=nope',
  'statuses=completed,failed',
  'statuses=completed&statuses=pending',
  'event_type=search&limit=100&include_total=true',
  'event_type=search&filter_before=yesterday',
  'event_type=grep&filter_after=2020-13-45T99:99:99Z',
  'expires=1&signature=x',
  'expires=99999999999999999999&signature=' + 'f'.repeat(64),
  'return_chunks=true',
  'return_chunks=1,2,3',
  'return_chunks=-1',
  'billable=yes',
  'offset=-5',
  'offset=1e20',
  '&&&',
  '=',
  'a=1&a=2&a=3',
);

function queryFor(
  op: FuzzOperation,
  arbs: SchemaArbitraries,
  signed: fc.Arbitrary<Record<string, string>> | null,
): fc.Arbitrary<{ text: string; label: string }> {
  const alts: Array<{ weight: number; arbitrary: fc.Arbitrary<{ text: string; label: string }> }> = [
    { weight: op.query ? 2 : 8, arbitrary: fc.constant({ text: '', label: '' }) },
    { weight: 1, arbitrary: rawQueries.map((text) => ({ text, label: 'query:raw' })) },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(fc.string({ minLength: 1, maxLength: 8 }), oddString(20), { maxKeys: 3 })
        .map((q) => ({ text: encodeQuery(q), label: 'query:unknown_params' })),
    },
  ];
  if (op.query) {
    const schema = op.query;
    alts.push({ weight: 6, arbitrary: arbs.valid(schema).map((q) => ({ text: encodeQuery(q), label: '' })) });
    // a query has no nesting, and a request line plus headers over 16 KiB is refused by Node's HTTP parser itself (a bare 431, before the app)
    const ms = mutations(schema, (s) => arbs.resolve(s))
      .filter(
        (m) =>
          ![
            'deep_nesting',
            'huge_in_list',
            'wide_filter',
            'huge_id_list',
            'many_stores',
            'metadata_limits',
            'not_an_object',
            'huge_string',
          ].includes(m.label),
      )
      .concat({
        label: 'long_string',
        apply: (v) => anywhere(v, (at) => fc.constantFrom(300, 1000).map((n) => setAt(v, at, 'é'.repeat(n)))),
      });
    alts.push({
      weight: 3,
      arbitrary: fc
        .tuple(arbs.valid(schema), fc.constantFrom(...ms))
        .chain(([q, m]) => m.apply(q).map((x) => ({ text: encodeQuery(x), label: `query:${m.label}` }))),
    });
  }
  if (signed) alts.push({ weight: 4, arbitrary: signed.map((q) => ({ text: encodeQuery(q), label: 'query:signed' })) });
  return fc.oneof(...alts);
}

function jsonBody(
  op: FuzzOperation & { body: { kind: 'json'; schema: Schema } },
  arbs: SchemaArbitraries,
): fc.Arbitrary<BodyPart> {
  const schema = op.body.schema;
  const ms = mutations(schema, (s) => arbs.resolve(s));
  const asJson = (text: string, labels: string[]) => ({
    body: Buffer.from(text),
    headers: { 'content-type': JSON_TYPE },
    labels,
  });
  const valid = arbs.valid(schema);
  return fc.oneof(
    { weight: 5, arbitrary: valid.map((v) => asJson(serialize(v), [])) },
    {
      weight: 7,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...ms))
        .chain(([v, m]) => m.apply(v).map((x) => asJson(serialize(x), [`body:${m.label}`]))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.nat(),
          fc.constantFrom(
            'truncated',
            'trailing',
            'bom',
            'comment',
            'single_quotes',
            'nan',
            'empty',
            'duplicate_keys',
            'invalid_utf8',
          ),
        )
        .map(([v, n, how]) => {
          const text = serialize(v);
          const bad: Record<string, () => Buffer | string> = {
            truncated: () => text.slice(0, n % Math.max(1, text.length)),
            trailing: () => `${text} }garbage`,
            bom: () => `\ufeff${text}`,
            comment: () => `/* c */ ${text}`,
            single_quotes: () => text.replace(/"/g, "'"),
            nan: () => '{"top_k": NaN, "limit": Infinity}',
            empty: () => '',
            duplicate_keys: () => text.replace(/^\{/, '{"name":"a","name":"b",'),
            invalid_utf8: () =>
              Buffer.concat([
                Buffer.from(text.slice(0, -1) || '{'),
                Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
                Buffer.from('"}'),
              ]),
          };
          const b = bad[how]();
          return {
            body: Buffer.isBuffer(b) ? b : Buffer.from(b),
            headers: { 'content-type': JSON_TYPE },
            labels: [`body:syntax_${how}`],
          };
        }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.constantFrom(...CONTENT_TYPES)).map(([v, type]): BodyPart => ({
        body: Buffer.from(type.includes('form-urlencoded') ? 'name=formed&x=1' : serialize(v)),
        headers: type ? { 'content-type': type } : {},
        labels: ['body:content_type'],
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('gzip', 'gzip-garbage', 'deflate-garbage', 'br', 'compress', 'identity'))
        .map(([v, enc]) => {
          const text = serialize(v);
          const body =
            enc === 'gzip'
              ? gzipSync(text)
              : enc.endsWith('-garbage')
                ? Buffer.from('not compressed at all')
                : Buffer.from(text);
          return {
            body,
            headers: { 'content-type': JSON_TYPE, 'content-encoding': enc.replace('-garbage', '') },
            labels: ['body:content_encoding'],
          };
        }),
    },
    { weight: 1, arbitrary: fc.constant<BodyPart>({ headers: {}, labels: ['body:none'] }) },
  );
}

const FILE_TYPES = [
  'text/plain',
  'text/markdown',
  'text/html',
  'text/csv',
  'application/json',
  'application/pdf',
  'image/png',
  'application/octet-stream',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'x/y',
  '',
];
const WORDS = ['bread', 'butter', 'jam', 'larder', 'shelf', 'rye', 'sourdough', 'honey', 'cheese', 'pickles'];

function multipartBody(op: FuzzOperation): fc.Arbitrary<BodyPart> {
  const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
  const part = (headers: string, content: Buffer | string) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`),
      Buffer.isBuffer(content) ? content : Buffer.from(content),
      Buffer.from('\r\n'),
    ]);
  const end = Buffer.from(`--${boundary}--\r\n`);
  const type = `multipart/form-data; boundary=${boundary}`;
  const content = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 30 }).map((w) => w.join(' ')),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '%PDF-1.7 broken',
        '\u0000\u0001\u0002',
        '<html><body><p>x</p>',
        'a,b\n1,2\n',
        '{"a":',
        '\ufeffbom text',
      ),
    },
    { weight: 1, arbitrary: oddString(200) },
  );
  const filename = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom('notes.txt', 'a.md', 'doc.pdf', 'data.csv', 'page.html', 'x.json', 'noext'),
    },
    { weight: 1, arbitrary: oddString(30).map((s) => s.replace(/["\r\n]/g, '_')) },
    { weight: 1, arbitrary: fc.constantFrom('', '../../etc/passwd', 'a"b.txt', 'x'.repeat(2000), 'nul\u0000.txt') },
  );
  const fileHeaders = fc
    .tuple(filename, fc.constantFrom(...FILE_TYPES))
    .map(
      ([n, t]) => `Content-Disposition: form-data; name="file"; filename="${n}"${t ? `\r\nContent-Type: ${t}` : ''}`,
    );
  const fieldValue = fc.oneof(
    anyJson(1).map((x) => serialize(x)),
    fc.constantFrom(
      '{',
      '',
      'null',
      '[]',
      '{"metadata":{"a":1}}',
      '{"config":{"parsing_strategy":"fast"}}',
      '{"metadata":{"k":"v\\u0000"}}',
      '{"external_id":"ext-1","overwrite":true}',
      'm'.repeat(200_000),
    ),
  );
  const fields = fc.array(
    fc.tuple(fc.constantFrom('params', 'metadata', 'config', 'external_id', 'purpose', 'file_id', 'x'), fieldValue),
    { maxLength: op.route.includes('/v1/stores/') ? 3 : 1 },
  );
  const valid = fc.tuple(fileHeaders, content, fields).map(([h, c, fs]) => ({
    body: Buffer.concat([
      ...fs.map(([n, v]) => part(`Content-Disposition: form-data; name="${n}"`, v)),
      part(h, c),
      end,
    ]),
    headers: { 'content-type': type },
    labels: fs.length ? ['multipart:fields'] : [],
  }));
  const broken = fc
    .tuple(
      fileHeaders,
      content,
      fc.constantFrom(
        'no_close',
        'no_file',
        'two_files',
        'wrong_boundary',
        'no_boundary',
        'json_body',
        'garbage',
        'many_fields',
        'empty',
        'header_only',
        'bad_disposition',
      ),
    )
    .map(([h, c, how]) => {
      const file = part(h, c);
      const bodies: Record<string, () => { body: Buffer; type: string }> = {
        no_close: () => ({ body: file, type }),
        no_file: () => ({
          body: Buffer.concat([part('Content-Disposition: form-data; name="params"', '{}'), end]),
          type,
        }),
        two_files: () => ({ body: Buffer.concat([file, file, end]), type }),
        wrong_boundary: () => ({ body: Buffer.concat([file, end]), type: 'multipart/form-data; boundary=other' }),
        no_boundary: () => ({ body: Buffer.concat([file, end]), type: 'multipart/form-data' }),
        json_body: () => ({ body: Buffer.from('{"file":"x"}'), type: JSON_TYPE }),
        garbage: () => ({ body: Buffer.from('\u0000\u00ff garbage ----\r\n\r\n--'), type }),
        many_fields: () => ({
          body: Buffer.concat([
            ...Array.from({ length: 2000 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, 'v')),
            file,
            end,
          ]),
          type,
        }),
        empty: () => ({ body: Buffer.alloc(0), type }),
        header_only: () => ({
          body: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n`),
          type,
        }),
        bad_disposition: () => ({ body: Buffer.concat([part('Content-Disposition: attachment', c), end]), type }),
      };
      const b = bodies[how]();
      return { body: b.body, headers: { 'content-type': b.type }, labels: [`multipart:${how}`] };
    });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: broken },
    { weight: 1, arbitrary: fc.constant<BodyPart>({ headers: {}, labels: ['body:none'] }) },
  );
}

function rawBody(): fc.Arbitrary<BodyPart> {
  return fc
    .tuple(
      fc.uint8Array({ maxLength: 2048 }),
      fc.constantFrom('application/octet-stream', '', 'application/json', 'multipart/form-data'),
    )
    .map(([bytes, type]): BodyPart => ({
      body: Buffer.from(bytes),
      headers: type ? { 'content-type': type } : {},
      labels: [],
    }));
}

function noBody(): fc.Arbitrary<BodyPart> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant<BodyPart>({ headers: {}, labels: [] }) },
    {
      weight: 1,
      arbitrary: anyJson(1).map((x) => ({
        body: Buffer.from(serialize(x)),
        headers: { 'content-type': JSON_TYPE },
        labels: ['body:unexpected'],
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('text/plain', 'application/xml', '').map((t): BodyPart => ({
        body: Buffer.from('<x/>'),
        headers: t ? { 'content-type': t } : {},
        labels: ['body:unexpected_type'],
      })),
    },
  );
}

const extraHeaders = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { host: 'evil.example:99999' },
      { host: '[::1' },
      { host: 'a'.repeat(300) },
      { 'x-forwarded-proto': 'javascript' },
      { 'x-forwarded-host': 'evil.example' },
      { accept: 'application/xml' },
      { 'accept-encoding': 'br;q=abc' },
      { 'x-mxbai-tool-ticket': 'x'.repeat(2000) },
      { 'idempotency-key': '\u00ff' },
      { range: 'bytes=5-1' },
      { range: 'bytes=0-0,1-1,2-2' },
      { 'if-none-match': '*' },
    ),
  },
);

/** Requests for one operation: valid and broken path parameters, query, body and headers. */
function requestsFor(op: FuzzOperation, arbs: SchemaArbitraries, fx: FuzzFixture): fc.Arbitrary<FuzzRequest> {
  const params: fc.Arbitrary<Tagged[]> = fc.tuple(...op.pathParams.map((n) => pathParam(n, op, fx)));
  const signedPairs = fx.signed[op.route];
  const signed = signedPairs?.length ? fc.constantFrom(...signedPairs) : null;
  const body =
    op.body?.kind === 'json'
      ? jsonBody(op as FuzzOperation & { body: { kind: 'json'; schema: Schema } }, arbs)
      : op.body?.kind === 'multipart'
        ? multipartBody(op)
        : op.body?.kind === 'raw'
          ? rawBody()
          : noBody();
  const pathAndQuery = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(params, queryFor(op, arbs, null)).map(([ps, q]) => ({ ps, q })) },
    // a signed URL the service handed out, as it was or with its query broken
    ...(signed
      ? [
          {
            weight: 3,
            arbitrary: fc
              .tuple(
                signed,
                queryFor(
                  op,
                  arbs,
                  signed.map((s) => s.query),
                ),
              )
              .map(([s, q]) => ({
                ps: op.pathParams.map((n): Tagged => ({ value: encodeURIComponent(s.params[n]), tag: 'signed' })),
                q,
              })),
          },
        ]
      : []),
  );
  return fc
    .tuple(
      pathAndQuery,
      body,
      authHeader(fx),
      extraHeaders,
      op.headerParams.length
        ? fc.option(
            oddString(40).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
            { nil: undefined },
          )
        : fc.constant(undefined),
    )
    .map(([{ ps, q }, b, auth, extra, ticket]) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => ps[i++].value) + (q.text ? `?${q.text}` : '');
      const headers: Record<string, string> = { ...b.headers, ...extra };
      if (auth.value !== null) headers.authorization = auth.value;
      if (ticket !== undefined) headers['x-mxbai-tool-ticket'] = ticket;
      const labels = [
        ...ps.filter((p) => !['real', 'signed'].includes(p.tag)).map((p) => `path:${p.tag}`),
        ...(q.label ? [q.label] : []),
        ...b.labels,
        ...(auth.tag === 'main' ? [] : [auth.tag]),
        ...(Object.keys(extra).length ? ['headers:odd'] : []),
      ];
      const tenantParams = ps.filter((_, k) => op.pathParams[k] !== 'part_number' && op.pathParams[k] !== 'model');
      const crossTenant =
        !op.public &&
        ((auth.tag === 'main' && tenantParams.some((p) => p.cross === true)) ||
          (['auth:other_org', 'auth:root'].includes(auth.tag) &&
            !ADMIN(op.route) &&
            tenantParams.some((p) => p.tag === 'real' || p.tag === 'near_miss')));
      const needsWriteScope =
        !op.public && auth.tag === 'auth:scoped' && op.method !== 'GET' && !READ_ONLY_POSTS.has(op.route);
      return {
        operation: op.route,
        method: op.method,
        path,
        headers,
        body: b.body,
        labels: labels.length ? labels : ['valid'],
        crossTenant,
        needsWriteScope,
      };
    });
}

/** The models a test server with the default configuration serves (`GET /v1/models`). */
const SERVED_MODELS = ['universal-sentence-encoder-lite', 'larder-hybrid-rerank'];

/** Requests over every operation of the document, each operation equally likely. */
export function requestArbitrary(
  doc: OpenApiDocument,
  fx: FuzzFixture,
  options: { only?: RegExp; hints?: Hints } = {},
): { operations: FuzzOperation[]; arbitrary: fc.Arbitrary<FuzzRequest> } {
  const operations = operationsOf(doc).filter(
    (op) => !options.only || options.only.test(op.id) || options.only.test(op.route),
  );
  const stores = [...fx.stable.stores, ...fx.throwaway.stores];
  const files = [...fx.stable.files, ...fx.throwaway.files];
  const hints: Hints = {
    'store_identifiers[]': fc.constantFrom(
      ...stores.flatMap((s) => [s.id, s.name]),
      ...fx.other.stores.map((s) => s.id),
    ),
    store_identifier: fc.constantFrom(...stores.flatMap((s) => [s.id, s.name])),
    store_id: fc.constantFrom(...stores.map((s) => s.id)),
    file_id: fc.constantFrom(...files, ...fx.other.files),
    'file_ids[]': fc.constantFrom(...files, ...fx.other.files),
    // metadata is any JSON value
    metadata: fc.oneof(
      anyObject(2),
      fc.constant(null),
      fc.string({ maxLength: 20 }),
      fc.integer(),
      fc.array(fc.integer(), { maxLength: 3 }),
    ),
    // embeddings and reranking name a served model (or `default`) to get past the 404
    model: fc.constantFrom(...SERVED_MODELS, 'default', 'not-a-served-model'),
    ...options.hints,
  };
  const arbs = new SchemaArbitraries(componentsOf(doc), hints);
  return { operations, arbitrary: fc.oneof(...operations.map((op) => requestsFor(op, arbs, fx))) };
}

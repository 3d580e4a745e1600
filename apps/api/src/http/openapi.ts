import { INestApplication, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { getMetadataStorage, validateSync } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { IS_PUBLIC, ParseUuidParamPipe } from '@larder/kernel';
import { OPERATIONS, OperationSpec } from './openapi-responses';
import { RESPONSE_SCHEMAS } from './openapi-response-schemas';
import { BODIES, HAND_WRITTEN, MULTIPART } from './openapi-requests';
import { PATH_PARAMETERS, q, QUERY_PARAMETERS, QueryParameter } from './openapi-parameters';

const ERROR_RESPONSES: Record<string, { description: string; schema: string }> = {
  '400': {
    description: 'Bad request: a request the service refuses as asked (a malformed JSON body is a 422 json_invalid)',
    schema: 'Error',
  },
  '401': { description: 'No API key, or an unknown, revoked or expired one', schema: 'Error' },
  '403': { description: "The key's scope does not allow this", schema: 'Error' },
  '404': {
    description: 'Not found (or not visible to this organization; for /console: the console is not built)',
    schema: 'Error',
  },
  '409': {
    description: 'Conflict (a concurrent write, a name in use, a redeemed tool ticket); not worth retrying',
    schema: 'Error',
  },
  '413': { description: 'The body or the file is larger than the configured limit', schema: 'Error' },
  '422': { description: 'Validation failed', schema: 'ValidationError' },
  '503': { description: 'The database or a read model did not answer in time; retry shortly', schema: 'Error' },
};

const TAGS: Record<string, string> = {
  service: 'service information, health, metrics, this document',
  files: 'files and multipart uploads',
  api_keys: 'API keys',
  billing: 'usage and costs',
  buckets: 'bring-your-own object storage',
  trace_destinations: 'where agentic search, question answering and chat traces go (Larder)',
  admin: 'administration',
  events: 'activity events',
  stores: 'stores',
  store_files: 'the files of a store',
  search_rules: 'search rules',
  search: 'search, grep, chunks, facets, question answering',
  chat: 'chat completions with store tools',
  responses: "OpenAI's Responses API with file_search over the stores",
  embeddings: 'embeddings',
  reranking: 'reranking',
  models: 'served models',
  vector_stores: "OpenAI's vector store API",
};

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Record<string, unknown>>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses?: Record<string, unknown>;
  security?: unknown;
  deprecated?: boolean;
};

/** Every controller class of the application by name (the operation ids @nestjs/swagger makes are `Class_method`). */
function controllersOf(app: INestApplication): Map<string, Type> {
  const out = new Map<string, Type>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values())
      if (wrapper.metatype) out.set(wrapper.metatype.name, wrapper.metatype as Type);
  }
  return out;
}

/** What a route handler reads: its query DTO or named query values, and whether it is public. */
function handlerFacts(
  controller: Type | undefined,
  method: string,
  fromDtos: Record<string, { properties?: Record<string, unknown>; required?: string[] }>,
) {
  if (!controller) return { query: [] as QueryParameter[], isPublic: false, uuids: new Set<string>() };
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    { index: number; data?: unknown; pipes?: unknown[] }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ?? []) as Array<
    Type | undefined
  >;
  const query: QueryParameter[] = [];
  const uuids = new Set<string>();
  for (const [key, arg] of Object.entries(args).sort(([, a], [, b]) => a.index - b.index)) {
    if (
      Number(key.split(':')[0]) === Number(RouteParamtypes.PARAM) &&
      typeof arg.data === 'string' &&
      arg.pipes?.includes(ParseUuidParamPipe)
    )
      uuids.add(arg.data);
    if (Number(key.split(':')[0]) !== Number(RouteParamtypes.QUERY)) continue;
    if (typeof arg.data === 'string') {
      query.push(q(arg.data, { type: 'string' }));
      continue;
    }
    const dto = types[arg.index]?.name ?? '';
    const listed = QUERY_PARAMETERS[dto];
    if (listed) query.push(...listed);
    else
      for (const [name, schema] of Object.entries(fromDtos[dto]?.properties ?? {}))
        query.push(q(name, schema as Record<string, unknown>));
  }
  const handler = (controller.prototype as Record<string, unknown>)[method];
  const isPublic =
    Reflect.getMetadata(IS_PUBLIC, handler as object) === true || Reflect.getMetadata(IS_PUBLIC, controller) === true;
  return { query, isPublic, uuids };
}

/**
 * class-validator-jsonschema names the design type of a property it cannot describe (`unknown`,
 * `object`, `T[]` of a union) as `$ref: #/components/schemas/Object` / `Array`: schemas that do not
 * exist. Those become what they mean: any JSON value, any array.
 */
function builtinRefsReplaced<T>(value: T, key = ''): T {
  if (Array.isArray(value)) return value.map((v: unknown) => builtinRefsReplaced(v)) as T;
  if (!value || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (ref === '#/components/schemas/Object') return {} as T;
  // an array's items of an unknown type: any value
  if (ref === '#/components/schemas/Array') return (key === 'items' ? {} : { type: 'array' }) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, builtinRefsReplaced(v, k)])) as T;
}

/**
 * class-validator-jsonschema calls every property without `@IsOptional` required, though many
 * validators (Larder's `Check`, conditional ones) accept an absent value. What is required is found
 * out instead: an empty instance of each DTO is validated, and a property stays required only when
 * its absence fails.
 */
function requiredByValidation(schemas: Record<string, { required?: string[] }>): void {
  const targets = (getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> })
    .validationMetadatas;
  for (const target of targets.keys()) {
    if (typeof target !== 'function') continue;
    const schema = schemas[(target as Type).name];
    if (!schema?.required?.length) continue;
    let missing: Set<string>;
    try {
      missing = new Set(validateSync(new (target as Type)() as object).map((e) => e.property));
    } catch {
      continue;
    }
    schema.required = schema.required.filter((p) => missing.has(p));
    if (!schema.required.length) delete schema.required;
  }
}

/** The responses of an operation: its success answer and the errors it can answer. */
function responsesOf(
  key: string,
  spec: OperationSpec | undefined,
  facts: { isPublic: boolean; hasParams: boolean; hasPath: boolean; hasBody: boolean },
) {
  const responses: Record<string, unknown> = {};
  if (spec) {
    const json = (name: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } });
    let content: Record<string, unknown>;
    if (spec.response === 'html') content = { 'text/html': { schema: { type: 'string' } } };
    else if (spec.response === 'binary')
      content = {
        'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
      };
    else if (spec.response === 'prometheus')
      content = {
        'text/plain': {
          schema: { type: 'string', description: 'the Prometheus text exposition format, version 0.0.4' },
        },
      };
    else if (spec.response === 'any-file')
      content = {
        '*/*': {
          schema: { type: 'string', description: "the file's own MIME type (application/octet-stream when unknown)" },
        },
      };
    else content = json(spec.response);
    if (spec.streams)
      content['text/event-stream'] = {
        schema: {
          type: 'string',
          description: 'with `stream: true`: server-sent events, `data: <JSON>` each, ending with `data: [DONE]`',
        },
      };
    responses[String(spec.status)] = { description: 'Success', content };
  }
  const errors: string[] = [];
  const method = key.split(' ')[0];
  const writes = method !== 'GET' && !spec?.readOnly;
  if (!facts.isPublic) errors.push('401', '403', '503');
  if (facts.hasBody || facts.hasParams) errors.push('400', '422');
  if (facts.hasPath || (!facts.isPublic && method !== 'GET')) errors.push('404');
  if (!facts.isPublic && (writes || spec?.toolTicket)) errors.push('409');
  if (facts.hasBody) errors.push('413');
  if (key === 'GET /console') errors.push('404');
  if (key === 'GET /health/ready')
    responses['503'] = {
      description: 'A dependency fails (the same body)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/HealthReady' } } },
    };
  for (const status of [...new Set(errors)].sort()) responses[status] = { $ref: `#/components/responses/${status}` };
  return responses;
}

/**
 * The service's OpenAPI 3.1 document: paths from the controllers, request schemas from the
 * class-validator DTOs (class-validator-jsonschema) and, for the bodies with unions and the multipart forms,
 * ./openapi-requests; operation ids from ./openapi-responses, response schemas from
 * ./openapi-response-schemas, errors from the table above; query parameters from the
 * handlers' query DTOs (read from Nest's route metadata).
 */
export function buildOpenApi(
  app: INestApplication,
  version: string,
  options: { console?: boolean } = {},
): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Larder')
    .setDescription('Self-hosted document store and search service, wire-compatible with the Mixedbread API.')
    .setVersion(version)
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller}_${method}`,
  });
  doc.openapi = '3.1.0';
  const fromDtos = builtinRefsReplaced(
    validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }),
  ) as Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
  requiredByValidation(fromDtos);
  const controllers = controllersOf(app);
  // the document itself and its interactive page are served outside Nest's router
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  // (and the web console, a page whose own routes are in the browser: /console/* answers the same page)
  const pages = ['/v1/schemas/mxjson', '/openapi.json', '/docs', ...(options.console ? ['/console'] : [])];
  for (const path of pages) paths[path] = { get: { operationId: `service_${path}`, responses: {} } };
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      const spec = OPERATIONS[key];
      const id = operation.operationId ?? '';
      const [controllerName, handler] = [id.slice(0, id.indexOf('_')), id.slice(id.indexOf('_') + 1)];
      const facts = handlerFacts(controllers.get(controllerName), handler, fromDtos);
      const isPublic = facts.isPublic || pages.includes(path);
      const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const parameters: Array<Record<string, unknown>> = [
        ...pathNames.map((name) => ({
          name,
          in: 'path',
          required: true,
          schema: facts.uuids.has(name) ? { type: 'string', format: 'uuid' } : { type: 'string' },
          ...(PATH_PARAMETERS[name] ? { description: PATH_PARAMETERS[name] } : {}),
        })),
        ...facts.query.map((p) => ({
          in: 'query',
          ...p,
          ...(p.schema.type === 'array' ? { style: 'form', explode: true } : {}),
        })),
      ];
      if (spec?.toolTicket) {
        parameters.push({
          name: 'X-Mxbai-Tool-Ticket',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            'a tool ticket from a chat completion: the call is redeemed as that hosted tool call (once; 403 when forged, expired or foreign; 409 when used)',
        });
      }
      const multipart = MULTIPART[key];
      if (multipart)
        operation.requestBody = { required: true, content: { 'multipart/form-data': { schema: multipart } } };
      else if (key === 'PUT /v1/files/uploads/{upload_id}/parts/{part_number}') {
        operation.requestBody = {
          required: true,
          content: {
            'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        };
      } else if (operation.operationId && BODIES[operation.operationId]) {
        operation.requestBody = {
          required: true,
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${BODIES[operation.operationId]}` } },
          },
        };
      }
      item[method] = {
        operationId: spec?.operationId ?? operation.operationId,
        ...(operation.summary ? { summary: operation.summary } : {}),
        ...(spec?.description ? { description: spec.description } : {}),
        tags: [spec?.tag ?? 'other'],
        parameters,
        ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
        responses: responsesOf(key, spec, {
          isPublic,
          hasParams: parameters.length > 0,
          hasPath: pathNames.length > 0,
          hasBody: !!operation.requestBody,
        }),
        ...(isPublic ? { security: [] } : {}),
        // a controller marks its route deprecated with @ApiOperation({ deprecated: true })
        ...(operation.deprecated ? { deprecated: true } : {}),
      };
    }
  }
  doc.tags = Object.entries(TAGS).map(([name, description]) => ({ name, description }));
  doc.security = [{ ApiKeyAuth: [] }];
  doc.components = {
    securitySchemes: {
      ApiKeyAuth: { type: 'http', scheme: 'bearer', description: 'an API key: `Authorization: Bearer <key>`' },
    },
    schemas: {
      ...(fromDtos as Record<string, object>),
      ...(HAND_WRITTEN as Record<string, object>),
      ...RESPONSE_SCHEMAS,
    },
    responses: Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, r]) => [
        status,
        {
          description: r.description,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${r.schema}` } } },
        },
      ]),
    ),
  };
  return doc;
}

/**
 * Serves the document at /openapi.json and /v1/schemas/mxjson, and interactive docs at /docs (offline
 * assets). Given a function, the document is built on its first request (once), not while the server starts.
 */
export function serveOpenApi(app: INestApplication, docOrBuild: OpenAPIObject | (() => OpenAPIObject)): void {
  let doc: OpenAPIObject | null = typeof docOrBuild === 'function' ? null : docOrBuild;
  const document = () => (doc ??= (docOrBuild as () => OpenAPIObject)());
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'Larder API',
  });
  const http = app.getHttpAdapter();
  http.get('/v1/schemas/mxjson', (_req: unknown, res: { json: (b: unknown) => void }) => res.json(document()));
}

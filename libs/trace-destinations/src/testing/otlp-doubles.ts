import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo, Socket } from 'net';
import * as protobuf from 'protobufjs';
import { OTLP_TRACE_PROTO } from './otlp-trace.proto';

/**
 * Local stand-ins for the remote trace backends a destination points at, speaking their real wire
 * protocols: an OTLP/HTTP traces receiver (`POST /v1/traces`, `application/x-protobuf` decoded as
 * `ExportTraceServiceRequest` with the official message definitions, or OTLP/JSON), and a Langfuse
 * double (its key check `GET /api/public/projects` and its OTLP endpoint `/api/public/otel/v1/traces`,
 * both with basic auth `public_key:secret_key`).
 *
 * What a request gets is scripted with `behave(...)`: accept, answer a status (with `Retry-After`),
 * redirect, or hang. Every export that arrives is recorded with its headers and decoded spans.
 */

const root = new protobuf.Root();
for (const source of OTLP_TRACE_PROTO) protobuf.parse(source, root, { keepCase: true });
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

/** One decoded span, with its resource and scope. Kinds and status codes are OTLP's numbers (1 INTERNAL, 3 CLIENT; status 2 ERROR). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: { name: string; version: string };
}

export interface ReceivedExport {
  path: string;
  headers: IncomingHttpHeaders;
  contentType: string;
  spans: ReceivedSpan[];
}

export type Behaviour =
  | 'accept'
  | 'hang'
  | { status: number; body?: string; retryAfter?: number }
  | { redirect: string; status?: 301 | 302 | 307 | 308 };

export interface TraceBackendDouble {
  /** Base URL: `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Every export request that was accepted (decoded), in arrival order. */
  exports: ReceivedExport[];
  /** Every request, accepted or not: method, path and headers. */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  /** Every span of every accepted export. */
  spans(): ReceivedSpan[];
  /** What export requests get from now on (the key check of the Langfuse double is not affected). */
  behave(b: Behaviour): void;
  close(): Promise<void>;
}

const hex = (b: Uint8Array | undefined | null) => (b && b.length ? Buffer.from(b).toString('hex') : null);

function anyValue(v: Record<string, unknown> | undefined): unknown {
  if (!v) return null;
  if ('string_value' in v || 'stringValue' in v) return v.string_value ?? v.stringValue;
  if ('bool_value' in v || 'boolValue' in v) return v.bool_value ?? v.boolValue;
  if ('int_value' in v || 'intValue' in v) return Number(v.int_value ?? v.intValue);
  if ('double_value' in v || 'doubleValue' in v) return Number(v.double_value ?? v.doubleValue);
  const arr = (v.array_value ?? v.arrayValue) as { values?: Record<string, unknown>[] } | undefined;
  if (arr) return (arr.values ?? []).map(anyValue);
  const kv = (v.kvlist_value ?? v.kvlistValue) as
    { values?: Array<{ key: string; value: Record<string, unknown> }> } | undefined;
  if (kv) return keyValues(kv.values);
  return null;
}

function keyValues(list: Array<{ key: string; value?: Record<string, unknown> }> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

type Obj = Record<string, unknown>;

/** A decoded request in either encoding (OTLP/JSON: lowerCamelCase keys, hex ids, 64-bit numbers as strings). */
function spansOf(request: Obj, json: boolean): ReceivedSpan[] {
  const id = (v: unknown) => (json ? (typeof v === 'string' && v ? v.toLowerCase() : null) : hex(v as Uint8Array));
  const k = (snake: string) => (json ? snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : snake);
  const out: ReceivedSpan[] = [];
  for (const rs of (request[k('resource_spans')] as Obj[] | undefined) ?? []) {
    const resource = keyValues(
      ((rs.resource as Obj | undefined)?.attributes as Array<{ key: string; value: Obj }>) ?? [],
    );
    for (const ss of (rs[k('scope_spans')] as Obj[] | undefined) ?? []) {
      const scope = (ss.scope as Obj | undefined) ?? {};
      for (const s of (ss.spans as Obj[] | undefined) ?? []) {
        const status = (s.status as Obj | undefined) ?? {};
        out.push({
          traceId: id(s[k('trace_id')])!,
          spanId: id(s[k('span_id')])!,
          parentSpanId: id(s[k('parent_span_id')]),
          name: s.name as string,
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: BigInt((s[k('start_time_unix_nano')] as string | number | undefined) ?? 0),
          endTimeUnixNano: BigInt((s[k('end_time_unix_nano')] as string | number | undefined) ?? 0),
          attributes: keyValues(s.attributes as Array<{ key: string; value: Obj }>),
          status: { code: Number(status.code ?? 0), message: (status.message as string | undefined) ?? '' },
          resource,
          scope: { name: (scope.name as string) ?? '', version: (scope.version as string) ?? '' },
        });
      }
    }
  }
  return out;
}

/** The spans of an `ExportTraceServiceRequest` in OTLP/HTTP's protobuf (`application/x-protobuf`) or JSON encoding. */
export function decodeTraceExport(
  body: Uint8Array,
  contentType: 'application/x-protobuf' | 'application/json',
): ReceivedSpan[] {
  if (contentType === 'application/json') return spansOf(JSON.parse(Buffer.from(body).toString('utf8')) as Obj, true);
  return spansOf(
    ExportRequest.toObject(ExportRequest.decode(body), { longs: String, defaults: false, oneofs: false }),
    false,
  );
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface Options {
  /** The export path. */
  path: string;
  /** Whether a request may export (else 401). */
  authorized(headers: IncomingHttpHeaders): boolean;
  /** Other routes (the Langfuse key check). */
  route?(req: IncomingMessage, res: ServerResponse): boolean;
}

async function startBackend(options: Options): Promise<TraceBackendDouble> {
  const exports: ReceivedExport[] = [];
  const requests: TraceBackendDouble['requests'] = [];
  let behaviour: Behaviour = 'accept';
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = (req.url ?? '/').split('?')[0];
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers });
      if (options.route?.(req, res)) return;
      if (path !== options.path)
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      if (req.method !== 'POST')
        return void res
          .writeHead(405, { 'content-type': 'text/plain' })
          .end('405 method not allowed, supported: [POST]');
      if (!options.authorized(req.headers))
        return void res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'Unauthorized' }));
      const b = behaviour;
      if (b === 'hang') return; // never answers (the socket is dropped on close)
      if (typeof b === 'object' && 'redirect' in b)
        return void res.writeHead(b.status ?? 307, { location: b.redirect }).end();
      if (typeof b === 'object') {
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        if (b.retryAfter !== undefined) headers['retry-after'] = String(b.retryAfter);
        return void res.writeHead(b.status, headers).end(b.body ?? `error ${b.status}`);
      }
      const contentType = String(req.headers['content-type'] ?? '')
        .split(';')[0]
        .trim();
      if (contentType !== 'application/x-protobuf' && contentType !== 'application/json') {
        return void res.writeHead(415, { 'content-type': 'text/plain' }).end(`unsupported content type ${contentType}`);
      }
      let spans: ReceivedSpan[];
      try {
        spans = decodeTraceExport(body, contentType);
      } catch (err) {
        return void res
          .writeHead(400, { 'content-type': 'text/plain' })
          .end(`malformed ExportTraceServiceRequest: ${(err as Error).message}`);
      }
      exports.push({ path, headers: req.headers, contentType, spans });
      if (contentType === 'application/json')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      res
        .writeHead(200, { 'content-type': 'application/x-protobuf' })
        .end(Buffer.from(ExportResponse.encode(ExportResponse.create({})).finish()));
    })().catch((err: Error) => res.writeHead(500).end(err.message));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    exports,
    requests,
    spans: () => exports.flatMap((e) => e.spans),
    behave: (b) => (behaviour = b),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An OTLP/HTTP collector's traces receiver; exports need every header of `requiredHeaders` (names lower-case). */
export function startOtlpReceiver(
  options: { path?: string; requiredHeaders?: Record<string, string> } = {},
): Promise<TraceBackendDouble & { requireHeaders(h: Record<string, string>): void }> {
  let required = options.requiredHeaders ?? {};
  return startBackend({
    path: options.path ?? '/v1/traces',
    authorized: (h) => Object.entries(required).every(([k, v]) => h[k] === v),
  }).then((d) => Object.assign(d, { requireHeaders: (h: Record<string, string>) => (required = h) }));
}

export interface LangfuseDouble extends TraceBackendDouble {
  /** Changes the key pair the project accepts (a rotation in Langfuse). */
  setKeys(publicKey: string, secretKey: string): void;
}

/** A Langfuse project: its key check and its OTLP endpoint, with basic auth `publicKey:secretKey`. */
export async function startLangfuseDouble(keys: { publicKey: string; secretKey: string }): Promise<LangfuseDouble> {
  let current = keys;
  const authorized = (h: IncomingHttpHeaders) =>
    h.authorization === `Basic ${Buffer.from(`${current.publicKey}:${current.secretKey}`).toString('base64')}`;
  const d = await startBackend({
    path: '/api/public/otel/v1/traces',
    authorized,
    route: (req, res) => {
      if ((req.url ?? '').split('?')[0] !== '/api/public/projects') return false;
      if (!authorized(req.headers)) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'Invalid credentials. Confirm that you have configured the correct host.' }));
      } else {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: [{ id: 'cm-project-e2e', name: 'larder-e2e', metadata: {} }] }));
      }
      return true;
    },
  });
  return Object.assign(d, { setKeys: (publicKey: string, secretKey: string) => (current = { publicKey, secretKey }) });
}

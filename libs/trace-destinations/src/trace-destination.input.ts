import { Problems, ValidationFailedError, isPlainObject } from '@larder/kernel';
import { OTLP_PROTOCOLS, OtlpProtocol, TraceDestinationKind, TraceTarget } from './events';
import type { TraceCredentials } from './delivery/destination-client';

/**
 * The `langfuse` and `otlp` objects of a request, checked by hand: their credential fields must never
 * come back in a 422 (class-validator's `input` would echo them), so no problem here carries the
 * value of a secret field, and URL problems carry no value either (a URL may hold a token).
 */

const MAX_URL = 2048;
const MAX_KEY = 1024;
const MAX_HEADERS = 32;
const MAX_HEADER_VALUE = 8192;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** Headers Larder sets itself, or that belong to the connection. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/** Whether a string holds a control character (C0 or DEL): header injection, or a key pasted with a line break. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function url(problems: Problems, value: unknown, loc: (string | number)[]): string | null {
  if (typeof value !== 'string' || !value.trim()) {
    problems.add(
      loc,
      value === undefined || value === null ? 'Field required' : 'Input should be an http(s) URL',
      value === undefined || value === null ? 'missing' : 'url_type',
    );
    return null;
  }
  const text = value.trim();
  if (text.length > MAX_URL) {
    problems.add(loc, `URL should have at most ${MAX_URL} characters`, 'string_too_long');
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    problems.add(loc, 'Input should be a valid absolute URL', 'url_parsing');
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    problems.add(loc, 'URL scheme should be http or https', 'url_scheme');
    return null;
  }
  if (parsed.username || parsed.password) {
    problems.add(loc, 'The URL must not carry credentials: supply them in their own fields', 'value_error');
    return null;
  }
  if (parsed.search || parsed.hash) {
    problems.add(
      loc,
      'The URL must not have a query or fragment (secrets belong in headers or keys, which are stored sealed)',
      'value_error',
    );
    return null;
  }
  return parsed.href;
}

function secretString(problems: Problems, value: unknown, loc: (string | number)[]): string | null {
  if (value === undefined || value === null) {
    problems.add(loc, 'Field required', 'missing');
    return null;
  }
  if (typeof value !== 'string' || !value.trim()) {
    problems.add(loc, 'Input should be a non-empty string', 'string_type');
    return null;
  }
  if (value.length > MAX_KEY) {
    problems.add(loc, `String should have at most ${MAX_KEY} characters`, 'string_too_long');
    return null;
  }
  if (/\s/.test(value) || hasControl(value)) {
    problems.add(loc, 'The key must not contain whitespace or control characters', 'value_error');
    return null;
  }
  return value;
}

function headersOf(problems: Problems, value: unknown, loc: (string | number)[]): Record<string, string> | null {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    problems.add(loc, 'Input should be an object of header names to values', 'dict_type');
    return null;
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_HEADERS) {
    problems.add(loc, `At most ${MAX_HEADERS} headers`, 'too_long');
    return null;
  }
  const out: Record<string, string> = {};
  let ok = true;
  for (const [rawName, v] of entries) {
    const name = rawName.toLowerCase();
    const at = [...loc, rawName];
    if (!TOKEN.test(name)) problems.add(at, 'Not a valid HTTP header name', 'value_error');
    else if (RESERVED_HEADERS.has(name) || name.startsWith('proxy-'))
      problems.add(at, `Larder sets ${name} itself`, 'value_error');
    else if (name in out) problems.add(at, `The header ${name} is given twice`, 'value_error');
    else if (typeof v !== 'string') problems.add(at, 'Input should be a valid string', 'string_type');
    else if (v.length > MAX_HEADER_VALUE)
      problems.add(at, `String should have at most ${MAX_HEADER_VALUE} characters`, 'string_too_long');
    else if (hasControl(v))
      problems.add(at, 'A header value must not contain line breaks or other control characters', 'value_error');
    else {
      out[name] = v;
      continue;
    }
    ok = false;
  }
  return ok ? out : null;
}

function protocolOf(problems: Problems, value: unknown, loc: (string | number)[]): OtlpProtocol | null {
  if (value === undefined || value === null) return 'http/protobuf';
  if (typeof value !== 'string' || !(OTLP_PROTOCOLS as readonly string[]).includes(value)) {
    problems.add(loc, `Input should be ${OTLP_PROTOCOLS.map((p) => `'${p}'`).join(' or ')}`, 'enum', value);
    return null;
  }
  return value as OtlpProtocol;
}

const KNOWN: Record<TraceDestinationKind, string[]> = {
  langfuse: ['host', 'public_key', 'secret_key'],
  otlp: ['endpoint', 'protocol', 'headers'],
};

function unknownFields(problems: Problems, obj: Record<string, unknown>, kind: TraceDestinationKind): void {
  for (const k of Object.keys(obj))
    if (!KNOWN[kind].includes(k)) problems.add(['body', kind, k], 'Extra inputs are not permitted', 'extra_forbidden');
}

/** The destination's settings object for its kind, and none for the other kind. */
function settingsObject(
  problems: Problems,
  body: Record<string, unknown>,
  kind: TraceDestinationKind,
  required: boolean,
): Record<string, unknown> | null {
  const other: TraceDestinationKind = kind === 'langfuse' ? 'otlp' : 'langfuse';
  if (body[other] !== undefined && body[other] !== null)
    problems.add(['body', other], `A ${kind} destination takes no ${other} settings`, 'extra_forbidden');
  const value = body[kind];
  if (value === undefined || value === null) {
    if (required) problems.add(['body', kind], 'Field required', 'missing');
    return null;
  }
  if (!isPlainObject(value)) {
    problems.add(['body', kind], 'Input should be a valid dictionary or object', 'dict_type');
    return null;
  }
  unknownFields(problems, value, kind);
  return value;
}

export interface ParsedTarget {
  target: TraceTarget;
  credentials: TraceCredentials;
}

/** A new destination's target and credentials (every field required but the OTLP headers and protocol). */
export function parseNewTarget(kind: TraceDestinationKind, body: Record<string, unknown>): ParsedTarget {
  const problems = new Problems();
  const s = settingsObject(problems, body, kind, true);
  let parsed: ParsedTarget | null = null;
  if (s && kind === 'langfuse') {
    const host = url(problems, s.host, ['body', 'langfuse', 'host']);
    const publicKey = secretString(problems, s.public_key, ['body', 'langfuse', 'public_key']);
    const secretKey = secretString(problems, s.secret_key, ['body', 'langfuse', 'secret_key']);
    if (host && publicKey && secretKey)
      parsed = { target: { kind, host }, credentials: { kind, publicKey, secretKey } };
  } else if (s && kind === 'otlp') {
    const endpoint = url(problems, s.endpoint, ['body', 'otlp', 'endpoint']);
    const protocol = protocolOf(problems, s.protocol, ['body', 'otlp', 'protocol']);
    const headers = headersOf(problems, s.headers, ['body', 'otlp', 'headers']);
    if (endpoint && protocol && headers)
      parsed = {
        target: { kind, endpoint, protocol, headerNames: Object.keys(headers).sort() },
        credentials: { kind, headers },
      };
  }
  problems.throwIfAny();
  if (!parsed) throw new ValidationFailedError([{ loc: ['body', kind], msg: 'Field required', type: 'missing' }]);
  return parsed;
}

/**
 * The changes an update asks of an existing destination's target: a new target (or none), and new
 * credentials (a rotation) or none (kept). Langfuse keys come as a pair; OTLP `headers` replace all
 * headers (`{}` removes them).
 */
export function parseTargetChanges(
  current: TraceTarget,
  body: Record<string, unknown>,
): { target?: TraceTarget; credentials?: TraceCredentials } {
  const problems = new Problems();
  const kind = current.kind;
  if (body.kind !== undefined && body.kind !== null && body.kind !== kind) {
    problems.add(
      ['body', 'kind'],
      `The kind of a trace destination cannot change (this one is ${kind}); create a new destination`,
      'value_error',
    );
  }
  const s = settingsObject(problems, body, kind, false);
  let out: { target?: TraceTarget; credentials?: TraceCredentials } = {};
  if (s && current.kind === 'langfuse') {
    const host = s.host === undefined ? current.host : url(problems, s.host, ['body', 'langfuse', 'host']);
    const rotating = s.public_key !== undefined || s.secret_key !== undefined;
    const publicKey = rotating ? secretString(problems, s.public_key, ['body', 'langfuse', 'public_key']) : null;
    const secretKey = rotating ? secretString(problems, s.secret_key, ['body', 'langfuse', 'secret_key']) : null;
    if (host) out = { target: { kind: 'langfuse', host } };
    if (rotating && publicKey && secretKey) out.credentials = { kind: 'langfuse', publicKey, secretKey };
  } else if (s && current.kind === 'otlp') {
    const endpoint =
      s.endpoint === undefined ? current.endpoint : url(problems, s.endpoint, ['body', 'otlp', 'endpoint']);
    const protocol =
      s.protocol === undefined ? current.protocol : protocolOf(problems, s.protocol, ['body', 'otlp', 'protocol']);
    const headers = s.headers === undefined ? null : headersOf(problems, s.headers, ['body', 'otlp', 'headers']);
    const headerNames = headers ? Object.keys(headers).sort() : current.headerNames;
    if (endpoint && protocol) out = { target: { kind: 'otlp', endpoint, protocol, headerNames } };
    if (headers) out.credentials = { kind: 'otlp', headers };
  }
  problems.throwIfAny();
  return out;
}

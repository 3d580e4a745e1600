import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { OutboundFailure, OutboundPolicy, OutboundResponse, outboundFetch, retryAfterMs } from '@larder/outbound';
import type { TraceTarget } from '../events';

/** What the vault keeps of a destination (never in an event, a log line, a response or an error message). */
export type TraceCredentials =
  { kind: 'langfuse'; publicKey: string; secretKey: string } | { kind: 'otlp'; headers: Record<string, string> };

/** Langfuse's OTLP/HTTP traces endpoint and its key check, under the host. */
export const LANGFUSE_OTLP_PATH = '/api/public/otel/v1/traces';
export const LANGFUSE_PROJECTS_PATH = '/api/public/projects';

/** Why a destination's check failed: `refused` by the outbound policy (the URL field is wrong), else the destination's answer. */
export class DestinationCheckError extends Error {
  constructor(
    readonly kind: 'refused' | 'rejected',
    message: string,
  ) {
    super(message);
    this.name = 'DestinationCheckError';
  }
}

export type SendOutcome = { ok: true } | { ok: false; error: string; retryAfterMs: number | null };

export interface DestinationClientOptions {
  /** One exchange with a destination (redirects included). */
  timeoutMs: number;
}

const RESPONSE_BYTES = 64 * 1024;
const MAX_REDIRECTS = 3;

function under(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.href;
}

/** The URL spans are posted to. */
export function exportUrl(target: TraceTarget): string {
  return target.kind === 'langfuse' ? under(target.host, LANGFUSE_OTLP_PATH) : target.endpoint;
}

function authHeaders(credentials: TraceCredentials): Record<string, string> {
  if (credentials.kind === 'langfuse')
    return {
      authorization: `Basic ${Buffer.from(`${credentials.publicKey}:${credentials.secretKey}`).toString('base64')}`,
    };
  return { ...credentials.headers };
}

/** Every secret value (and its encodings on the wire), to be cut out of any text that might echo one. */
function secretsOf(credentials: TraceCredentials): string[] {
  const values =
    credentials.kind === 'langfuse'
      ? [credentials.publicKey, credentials.secretKey, authHeaders(credentials).authorization]
      : Object.values(credentials.headers);
  const all = values.flatMap((v) => [v, v.replace(/^(Bearer|Basic)\s+/i, '')]);
  if (credentials.kind === 'langfuse')
    all.push(Buffer.from(`${credentials.publicKey}:${credentials.secretKey}`).toString('base64'));
  return [...new Set(all.filter((v) => v.length >= 4))].sort((a, b) => b.length - a.length);
}

/** A destination's answer as a short message for `last_error`: printable, 200 characters at most, with any credential cut out. */
export function scrub(text: string, credentials: TraceCredentials): string {
  let out = text;
  for (const s of secretsOf(credentials)) out = out.split(s).join('[redacted]');
  return out;
}

function snippet(res: OutboundResponse, credentials: TraceCredentials): string {
  const body = res.body
    .subarray(0, 400)
    .toString('utf8')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim();
  if (!body) return '';
  const cut = scrub(body, credentials);
  return `: ${cut.length > 200 ? `${cut.slice(0, 200)}…` : cut}`;
}

/**
 * Talks to trace destinations on a tenant's behalf, only through the outbound policy (checked before
 * the request, at connection time and at every redirect): the check before a destination is saved,
 * and the export of spans (OTLP/HTTP, protobuf or JSON, encoded by `@opentelemetry/otlp-transformer`).
 */
export class TraceDestinationClient {
  constructor(
    private readonly policy: OutboundPolicy,
    private readonly options: DestinationClientOptions,
  ) {}

  /** Refuses a URL the policy refuses (loopback, private, link-local, metadata addresses). */
  async checkUrl(url: string): Promise<void> {
    try {
      await this.policy.check(url);
    } catch (err) {
      throw new DestinationCheckError('refused', (err as Error).message);
    }
  }

  /**
   * Checks the credentials against the destination: Langfuse's key check (`GET /api/public/projects`
   * with basic auth, as its SDKs do), or an empty `ExportTraceServiceRequest` posted to the OTLP
   * endpoint with the headers. Throws DestinationCheckError with the reason.
   */
  async check(target: TraceTarget, credentials: TraceCredentials): Promise<void> {
    await this.checkUrl(target.kind === 'langfuse' ? target.host : target.endpoint);
    if (target.kind === 'langfuse') {
      const url = under(target.host, LANGFUSE_PROJECTS_PATH);
      const res = await this.exchange(
        url,
        { method: 'GET', headers: { ...authHeaders(credentials), accept: 'application/json' } },
        credentials,
      );
      if (res.status === 401 || res.status === 403)
        throw new DestinationCheckError(
          'rejected',
          `Langfuse at ${target.host} refused the key pair (HTTP ${res.status}${snippet(res, credentials)})`,
        );
      if (res.status < 200 || res.status >= 300)
        throw new DestinationCheckError(
          'rejected',
          `Langfuse's key check at ${res.url} answered HTTP ${res.status}${snippet(res, credentials)}`,
        );
      let projects: unknown;
      try {
        projects = (JSON.parse(res.body.toString('utf8')) as { data?: unknown }).data;
      } catch {
        projects = undefined;
      }
      if (!Array.isArray(projects))
        throw new DestinationCheckError(
          'rejected',
          `${res.url} did not answer as Langfuse does (no project list); is ${target.host} a Langfuse host?`,
        );
      return;
    }
    const res = await this.post(target, credentials, []);
    if (res.status >= 200 && res.status < 300) return;
    const why =
      res.status === 401 || res.status === 403
        ? 'refused the credentials'
        : res.status === 404 || res.status === 405
          ? 'has no OTLP/HTTP traces endpoint there'
          : res.status === 415
            ? `does not accept ${target.protocol}`
            : 'did not accept an empty export';
    throw new DestinationCheckError('rejected', `${res.url} ${why} (HTTP ${res.status}${snippet(res, credentials)})`);
  }

  /** Posts spans; never throws for the destination's sake: a failure comes back with its reason. */
  async send(target: TraceTarget, credentials: TraceCredentials, spans: ReadableSpan[]): Promise<SendOutcome> {
    let res: OutboundResponse;
    try {
      res = await this.post(target, credentials, spans);
    } catch (err) {
      const message =
        err instanceof DestinationCheckError || err instanceof OutboundFailure
          ? err.message
          : `export failed: ${(err as Error).message}`;
      return { ok: false, error: scrub(message, credentials), retryAfterMs: null };
    }
    if (res.status >= 200 && res.status < 300) return { ok: true };
    return {
      ok: false,
      error: `${res.url} answered HTTP ${res.status}${snippet(res, credentials)}`,
      retryAfterMs: retryAfterMs(res.headers['retry-after']),
    };
  }

  private async post(
    target: TraceTarget,
    credentials: TraceCredentials,
    spans: ReadableSpan[],
  ): Promise<OutboundResponse> {
    const json = target.kind === 'otlp' && target.protocol === 'http/json';
    // loaded on the first export, not at start (a large module tree most servers never use)
    const { JsonTraceSerializer, ProtobufTraceSerializer } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
    const body = (json ? JsonTraceSerializer : ProtobufTraceSerializer).serializeRequest(spans) ?? new Uint8Array();
    const headers = {
      ...authHeaders(credentials),
      'content-type': json ? 'application/json' : 'application/x-protobuf',
    };
    return this.exchange(
      exportUrl(target),
      { method: 'POST', headers, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) },
      credentials,
    );
  }

  private async exchange(
    url: string,
    request: { method: string; headers: Record<string, string>; body?: Buffer },
    credentials: TraceCredentials,
  ): Promise<OutboundResponse> {
    try {
      return await outboundFetch(this.policy, url, {
        ...request,
        timeoutMs: this.options.timeoutMs,
        maxBytes: RESPONSE_BYTES,
        maxRedirects: MAX_REDIRECTS,
      });
    } catch (err) {
      if (err instanceof OutboundFailure) {
        throw new DestinationCheckError(
          err.kind === 'refused' ? 'refused' : 'rejected',
          scrub(err.message, credentials),
        );
      }
      throw err;
    }
  }
}

export const TRACE_DESTINATION_CLIENT = Symbol('TRACE_DESTINATION_CLIENT');

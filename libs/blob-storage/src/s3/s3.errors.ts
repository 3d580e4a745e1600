/** Reading AWS SDK errors: outbound refusals and network codes in a cause chain, error-code families, and scrubbing credentials from messages. */
import { OutboundRefusedError } from '@larder/outbound';
import { BucketAccessError } from '../bucket-connector.port';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);
export const CREDENTIAL_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'InvalidClientTokenId',
  'InvalidSecurity',
]);
export const REGION_CODES = new Set([
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
  'IllegalLocationConstraintException',
  'Redirect',
]);

export type AwsError = Error & {
  name?: string;
  Code?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
  $fault?: string;
};

/** The outbound policy's refusal somewhere in an error's cause chain. */
export function refusalIn(err: unknown): OutboundRefusedError | null {
  for (
    let e = err as { cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as { cause?: unknown } | undefined, depth++
  ) {
    if (e instanceof OutboundRefusedError) return e;
  }
  return null;
}

/** A network error's code somewhere in an error's cause chain. */
export function networkCodeIn(err: unknown): string | null {
  for (let e = err as AwsError | undefined, depth = 0; e && depth < 5; e = e.cause as AwsError | undefined, depth++) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return e.code;
    if (e.name === 'TimeoutError' || e.name === 'RequestTimeout' || e.name === 'AbortError') return 'timeout';
    // an error from another realm (a test sandbox) reaches the SDK's retry layer only as its text
    const named = /\b(E[A-Z]{4,})\b/.exec(typeof e.message === 'string' ? e.message : '');
    if (named && NETWORK_CODES.has(named[1])) return named[1];
  }
  return null;
}

export function rethrown(err: unknown, doing: string): BucketAccessError {
  if (err instanceof BucketAccessError)
    return err.failure === 'denied' || err.failure === 'other'
      ? new BucketAccessError(err.failure, `${doing}: ${err.message}`)
      : err;
  return new BucketAccessError('other', `${doing}: ${(err as Error).message}`);
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('****');
  return out.length > 500 ? `${out.slice(0, 500)}…` : out;
}

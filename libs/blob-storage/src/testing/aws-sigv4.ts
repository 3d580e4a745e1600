/** AWS Signature Version 4 verification, as the S3 and STS doubles check every request. */
import { createHash, createHmac, timingSafeEqual } from 'crypto';
import * as http from 'http';

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 canonical query strings need it. */
function encodeRfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      const k = decodeURIComponent(i < 0 ? pair : pair.slice(0, i));
      const v = i < 0 ? '' : decodeURIComponent(pair.slice(i + 1));
      return [encodeRfc3986(k), encodeRfc3986(v)] as const;
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

export type SigV4Result =
  { ok: true; accessKeyId: string } | { ok: false; status: number; code: string; message: string };

/**
 * Verifies an `Authorization: AWS4-HMAC-SHA256 …` request as AWS does: the credential scope's date,
 * region-free check of the service, the signed headers, and the signature over the canonical request.
 */
export function verifySigV4(
  req: { method: string; url: string; headers: http.IncomingHttpHeaders },
  payloadHash: string,
  service: string,
  secretOf: (accessKeyId: string) => string | null,
): SigV4Result {
  const auth = req.headers.authorization;
  if (!auth)
    return {
      ok: false,
      status: 403,
      code: 'AccessDenied',
      message: 'Anonymous access is forbidden for this operation',
    };
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m)
    return {
      ok: false,
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: 'The authorization header is malformed',
    };
  const [, accessKeyId, date, region, svc, signedHeaders, signature] = m;
  if (svc !== service)
    return {
      ok: false,
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: `the credential scope names service ${svc}, expected ${service}`,
    };
  const secret = secretOf(accessKeyId);
  if (secret === null) {
    return service === 's3'
      ? {
          ok: false,
          status: 403,
          code: 'InvalidAccessKeyId',
          message: 'The AWS Access Key Id you provided does not exist in our records.',
        }
      : {
          ok: false,
          status: 403,
          code: 'InvalidClientTokenId',
          message: 'The security token included in the request is invalid.',
        };
  }
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date))
    return {
      ok: false,
      status: 403,
      code: 'SignatureDoesNotMatch',
      message: 'The credential date does not match x-amz-date',
    };
  const when = Date.parse(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  if (!Number.isFinite(when) || Math.abs(Date.now() - when) > 15 * 60_000)
    return {
      ok: false,
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: 'The difference between the request time and the current time is too large.',
    };
  const names = signedHeaders.split(';');
  if (!names.includes('host'))
    return { ok: false, status: 403, code: 'SignatureDoesNotMatch', message: 'host must be signed' };
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const headerValue = (n: string) => {
    const v = req.headers[n];
    return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
  };
  const canonical = [
    req.method,
    path,
    canonicalQuery(query),
    names.map((n) => `${n}:${headerValue(n)}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/${svc}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), svc), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      status: 403,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    };
  }
  return { ok: true, accessKeyId };
}

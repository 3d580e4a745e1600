import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'crypto';
import * as http from 'http';
import { AddressInfo } from 'net';
import { startS3TestServer } from './s3-test-server';

/**
 * Local doubles of the two AWS services customer buckets use, speaking their real wire formats:
 *  - an S3 endpoint: s3rver (which does not check SigV4 signatures) behind a front that verifies
 *    every request's AWS Signature Version 4 against its key table, checks session tokens and their
 *    expiry, and enforces a per-key policy (which buckets, read-only), answering S3's XML errors
 *    (`InvalidAccessKeyId`, `SignatureDoesNotMatch`, `AccessDenied`, `ExpiredToken`, …);
 *  - STS: `AssumeRole` in the AWS query protocol (form-encoded POST, SigV4 with service `sts`), an
 *    `AssumeRoleResponse` XML answer with temporary credentials the S3 double accepts, and an
 *    `ErrorResponse` (`AccessDenied`) when the caller or the `ExternalId` is not what the role trusts.
 */

export interface S3DoubleKey {
  secretAccessKey: string;
  /** Temporary credentials: the request must carry this `x-amz-security-token`. */
  sessionToken?: string;
  expiresAt?: Date;
  /** Buckets this key may touch ('*': all). */
  buckets: string[] | '*';
  /** GET and HEAD only. */
  readOnly?: boolean;
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
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

function s3Error(res: http.ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomUUID()}</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface S3Double {
  /** The endpoint Larder is given (the signing front). */
  endpoint: string;
  port: number;
  keys: Map<string, S3DoubleKey>;
  /** Every request the front answered: method, bucket and key, access key id and outcome. */
  log: { method: string; path: string; accessKeyId: string | null; status: number; at: number }[];
  createBucket(name: string): Promise<void>;
  /** The keys of the objects in `bucket` below `prefix`, read from the backing server directly. */
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  /** An object's bytes, read from the backing server directly (null when absent). */
  readObject(bucket: string, key: string): Promise<Buffer | null>;
  close(): Promise<void>;
}

/** s3rver behind a SigV4-verifying front (see the file comment). */
export async function startS3Double(): Promise<S3Double> {
  const backend = await startS3TestServer();
  const backendUrl = new URL(backend.endpoint);
  const keys = new Map<string, S3DoubleKey>();
  const log: S3Double['log'] = [];
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    const bucket = decodeURIComponent(path.split('/')[1] ?? '');
    const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    const refuse = (status: number, code: string, message: string, accessKeyId: string | null) => {
      log.push({ method, path, accessKeyId, status, at: Date.now() });
      req.resume();
      s3Error(res, status, code, message);
    };
    if (!payloadHash)
      return refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256', null);
    const verdict = verifySigV4(
      { method, url, headers: req.headers },
      payloadHash,
      's3',
      (id) => keys.get(id)?.secretAccessKey ?? null,
    );
    if (!verdict.ok) return refuse(verdict.status, verdict.code, verdict.message, null);
    const key = keys.get(verdict.accessKeyId)!;
    if (key.sessionToken !== undefined && req.headers['x-amz-security-token'] !== key.sessionToken) {
      return refuse(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.', verdict.accessKeyId);
    }
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now())
      return refuse(400, 'ExpiredToken', 'The provided token has expired.', verdict.accessKeyId);
    const writes = method !== 'GET' && method !== 'HEAD';
    if ((bucket && key.buckets !== '*' && !key.buckets.includes(bucket)) || (writes && key.readOnly))
      return refuse(403, 'AccessDenied', 'Access Denied', verdict.accessKeyId);
    // forwarded without the signature: s3rver serves anonymous requests
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: backendUrl.host };
    delete headers.authorization;
    delete headers['x-amz-security-token'];
    delete headers.expect;
    const upstream = http.request(
      { host: backendUrl.hostname, port: backendUrl.port, method, path: url, headers },
      (up) => {
        log.push({ method, path, accessKeyId: verdict.accessKeyId, status: up.statusCode ?? 0, at: Date.now() });
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) s3Error(res, 500, 'InternalError', err.message);
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const anonymousRaw = (method: string, path: string) =>
    new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      const r = http.request({ host: backendUrl.hostname, port: backendUrl.port, method, path }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      });
      r.on('error', reject);
      r.end();
    });
  const anonymous = async (method: string, path: string) => {
    const r = await anonymousRaw(method, path);
    return { status: r.status, body: r.body.toString('utf8') };
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    keys,
    log,
    async createBucket(name) {
      const r = await anonymous('PUT', `/${name}`);
      if (r.status >= 300) throw new Error(`creating bucket ${name}: ${r.status} ${r.body}`);
    },
    async listKeys(bucket, prefix = '') {
      const out: string[] = [];
      let token = '';
      for (;;) {
        const r = await anonymous(
          'GET',
          `/${bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}${token ? `&continuation-token=${encodeURIComponent(token)}` : ''}`,
        );
        if (r.status !== 200) throw new Error(`listing ${bucket}: ${r.status} ${r.body}`);
        for (const m of r.body.matchAll(/<Key>([^<]*)<\/Key>/g))
          out.push(m[1].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
        const next = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(r.body);
        if (!/<IsTruncated>true<\/IsTruncated>/.test(r.body) || !next) break;
        token = next[1];
      }
      return out;
    },
    async readObject(bucket, key) {
      const r = await anonymousRaw('GET', `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`);
      if (r.status === 404) return null;
      if (r.status !== 200) throw new Error(`reading ${bucket}/${key}: ${r.status}`);
      return r.body;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.close();
    },
  };
}

export interface StsDoubleRole {
  /** The ExternalId the role's trust policy requires (null: the role trusts nobody yet). */
  externalId: string | null;
  /** Which access keys may assume it (Larder's own identity). */
  trustedCallers: string[];
  /** What the temporary credentials may do on the S3 double. */
  permissions: Pick<S3DoubleKey, 'buckets' | 'readOnly'>;
}

export interface StsDouble {
  endpoint: string;
  port: number;
  /** Callers (access key id → secret) whose signatures STS accepts. */
  callers: Map<string, string>;
  roles: Map<string, StsDoubleRole>;
  /** Every AssumeRole call with its parameters and outcome. */
  calls: { roleArn: string; externalId: string | null; sessionName: string; caller: string | null; outcome: string }[];
  close(): Promise<void>;
}

const STS_NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

function stsError(res: http.ServerResponse, status: number, code: string, message: string): void {
  const body = `<ErrorResponse xmlns="${STS_NS}">\n  <Error>\n    <Type>Sender</Type>\n    <Code>${code}</Code>\n    <Message>${message}</Message>\n  </Error>\n  <RequestId>${randomUUID()}</RequestId>\n</ErrorResponse>\n`;
  res.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** AWS STS `AssumeRole` (query protocol); issued credentials are registered with `s3` so it accepts them. */
export async function startStsDouble(s3: S3Double, options: { durationCapSeconds?: number } = {}): Promise<StsDouble> {
  const callers = new Map<string, string>();
  const roles = new Map<string, StsDoubleRole>();
  const calls: StsDouble['calls'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (
        req.method !== 'POST' ||
        !String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
      ) {
        return stsError(res, 400, 'InvalidAction', 'STS takes form-encoded POST requests');
      }
      const params = new URLSearchParams(body.toString('utf8'));
      const roleArn = params.get('RoleArn') ?? '';
      const externalId = params.get('ExternalId');
      const sessionName = params.get('RoleSessionName') ?? '';
      const verdict = verifySigV4(
        { method: 'POST', url: req.url ?? '/', headers: req.headers },
        sha256Hex(body),
        'sts',
        (id) => callers.get(id) ?? null,
      );
      const record = (outcome: string, caller: string | null) =>
        calls.push({ roleArn, externalId, sessionName, caller, outcome });
      if (!verdict.ok) {
        record(verdict.code, null);
        return stsError(res, verdict.status, verdict.code, verdict.message);
      }
      if (params.get('Action') !== 'AssumeRole' || params.get('Version') !== '2011-06-15') {
        record('InvalidAction', verdict.accessKeyId);
        return stsError(
          res,
          400,
          'InvalidAction',
          `Could not find operation ${params.get('Action')} for version ${params.get('Version')}`,
        );
      }
      if (!/^[\w+=,.@-]{2,64}$/.test(sessionName)) {
        record('ValidationError', verdict.accessKeyId);
        return stsError(
          res,
          400,
          'ValidationError',
          "1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint",
        );
      }
      const role = roles.get(roleArn);
      // as AWS words it: the caller's user ARN (never its access key id)
      const denied = `User: arn:aws:iam::000000000000:user/larder is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`;
      if (
        !role ||
        !role.trustedCallers.includes(verdict.accessKeyId) ||
        role.externalId === null ||
        role.externalId !== externalId
      ) {
        record('AccessDenied', verdict.accessKeyId);
        return stsError(res, 403, 'AccessDenied', denied);
      }
      const duration = Math.min(Number(params.get('DurationSeconds') ?? 3600), options.durationCapSeconds ?? 43_200);
      const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
      const secretAccessKey = randomBytes(30).toString('base64');
      const sessionToken = randomBytes(64).toString('base64');
      const expiresAt = new Date(Date.now() + duration * 1000);
      s3.keys.set(accessKeyId, { secretAccessKey, sessionToken, expiresAt, ...role.permissions });
      record('ok', verdict.accessKeyId);
      const roleName = roleArn.split('/').pop();
      const xml = `<AssumeRoleResponse xmlns="${STS_NS}">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>${accessKeyId}</AccessKeyId>
      <SecretAccessKey>${secretAccessKey}</SecretAccessKey>
      <SessionToken>${sessionToken}</SessionToken>
      <Expiration>${expiresAt.toISOString()}</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROA${randomBytes(8).toString('hex').toUpperCase()}:${sessionName}</AssumedRoleId>
      <Arn>arn:aws:sts::000000000000:assumed-role/${roleName}/${sessionName}</Arn>
    </AssumedRoleUser>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>${randomUUID()}</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>
`;
      res.writeHead(200, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(xml) });
      res.end(xml);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    callers,
    roles,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

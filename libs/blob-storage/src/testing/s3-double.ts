/** An S3 double: s3rver behind a front that checks SigV4, session tokens and a per-key policy. */
import { randomUUID } from 'crypto';
import * as http from 'http';
import { AddressInfo } from 'net';
import { verifySigV4 } from './aws-sigv4';
import { startS3TestServer } from './s3-test-server';

/**
 * The S3 endpoint customer buckets are tested against, speaking S3's wire format: s3rver (which does not
 * check SigV4 signatures) behind a front that verifies every request's AWS Signature Version 4 against
 * its key table, checks session tokens and their expiry, and enforces a per-key policy (which buckets,
 * read-only), answering S3's XML errors (`InvalidAccessKeyId`, `SignatureDoesNotMatch`, `AccessDenied`,
 * `ExpiredToken`, …).
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

/** s3rver behind a SigV4-verifying front (see the comment above `S3DoubleKey`). */
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

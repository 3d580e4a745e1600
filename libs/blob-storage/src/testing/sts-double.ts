/** An STS double: `AssumeRole` issuing temporary credentials the S3 double accepts. */
import { randomBytes, randomUUID } from 'crypto';
import * as http from 'http';
import { AddressInfo } from 'net';
import { sha256Hex, verifySigV4 } from './aws-sigv4';
import { S3Double, S3DoubleKey } from './s3-double';

/**
 * AWS STS as customer-bucket roles are tested against: `AssumeRole` in the AWS query protocol
 * (form-encoded POST, SigV4 with service `sts`), an `AssumeRoleResponse` XML answer with temporary
 * credentials the S3 double accepts, and an `ErrorResponse` (`AccessDenied`) when the caller or the
 * `ExternalId` is not what the role trusts.
 */
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

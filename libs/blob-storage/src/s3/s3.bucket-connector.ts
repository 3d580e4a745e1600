import { randomUUID } from 'crypto';
import { Readable, Transform } from 'stream';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { Agent } from 'http';
import { OutboundPolicy, OutboundRefusedError } from '@larder/outbound';
import { BlobNotFoundError, BlobTooLargeError, ByteRange, PartInfo, StoredBlob } from '../blob-storage.port';
import { BucketAccessError, BucketAccessFailure, BucketConnector, BucketCredentials, BucketLocation, BucketStorage, objectPrefix } from '../bucket-connector.port';
import { S3BlobStorage } from './s3.blob-storage';

/** An AWS key pair, temporary when it has a session token. */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface S3BucketConnectorOptions {
  /** Every S3 and STS connection goes through it (checked at connection time: DNS rebinding is refused too). */
  outbound: OutboundPolicy;
  sts: {
    /** LARDER_STS_ENDPOINT: an STS-compatible endpoint; null for AWS's regional STS. */
    endpoint: string | null;
    region: string;
    /** Larder's own identity (LARDER_STS_ACCESS_KEY_ID …); undefined: the AWS SDK's default credential chain. */
    credentials?: AwsCredentialIdentity;
  };
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** How long assumed-role credentials are asked for (seconds, 900–43200). */
  roleSessionSeconds?: number;
  /** The most bytes read of one object (a bucket that answers more is cut off with an error); default 10 GiB. */
  maxObjectBytes?: number;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);
const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired', 'InvalidClientTokenId', 'InvalidSecurity']);
const REGION_CODES = new Set(['PermanentRedirect', 'AuthorizationHeaderMalformed', 'IllegalLocationConstraintException', 'Redirect']);

type AwsError = Error & { name?: string; Code?: string; code?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown; $fault?: string };

/** The outbound policy's refusal somewhere in an error's cause chain. */
function refusalIn(err: unknown): OutboundRefusedError | null {
  for (let e = err as { cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as { cause?: unknown } | undefined, depth++) {
    if (e instanceof OutboundRefusedError) return e;
  }
  return null;
}

/** A network error's code somewhere in an error's cause chain. */
function networkCodeIn(err: unknown): string | null {
  for (let e = err as AwsError | undefined, depth = 0; e && depth < 5; e = e.cause as AwsError | undefined, depth++) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return e.code;
    if (e.name === 'TimeoutError' || e.name === 'RequestTimeout' || e.name === 'AbortError') return 'timeout';
    // an error from another realm (a test sandbox) reaches the SDK's retry layer only as its text
    const named = /\b(E[A-Z]{4,})\b/.exec(typeof e.message === 'string' ? e.message : '');
    if (named && NETWORK_CODES.has(named[1])) return named[1];
  }
  return null;
}

/**
 * Connects to customer buckets with the real S3 protocol (`@aws-sdk/client-s3`), and assumes roles
 * with STS (`@aws-sdk/client-sts`). Error messages are built here from error codes and the service's
 * own message, with every credential value scrubbed.
 */
export class S3BucketConnector implements BucketConnector {
  private readonly sts: STSClient;
  private readonly requestHandler: { httpAgent: Agent; httpsAgent: Agent; connectionTimeout: number; requestTimeout: number };

  constructor(private readonly options: S3BucketConnectorOptions) {
    // the connector's own guarded keep-alive agents, shared by every bucket client (so no client may destroy them)
    this.requestHandler = {
      httpAgent: options.outbound.agent('http:'),
      httpsAgent: options.outbound.agent('https:'),
      connectionTimeout: options.connectionTimeoutMs ?? 5_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
    };
    this.sts = new STSClient({
      region: options.sts.region,
      endpoint: options.sts.endpoint ?? undefined,
      credentials: options.sts.credentials,
      requestHandler: this.requestHandler as never,
      maxAttempts: 2,
    });
  }

  async probe(location: BucketLocation, credentials: BucketCredentials): Promise<void> {
    if (location.endpointUrl) {
      await this.options.outbound.check(location.endpointUrl).catch((err: unknown) => {
        if (err instanceof OutboundRefusedError) throw new BucketAccessError('refused', err.message);
        throw err;
      });
    }
    const storage = this.open(location, credentials, { maxAttempts: 1 });
    const key = `.larder-probe/${randomUUID()}`;
    const body = Buffer.from(`larder bucket check ${new Date().toISOString()}\n`);
    try {
      await storage.put(key, Readable.from([body]), { contentType: 'text/plain' }).catch((err) => {
        throw rethrown(err, 'writing a test object');
      });
      const back = await storage.readAll(key).catch((err) => {
        throw rethrown(err, 'reading the test object back');
      });
      if (!back.equals(body)) throw new BucketAccessError('other', 'the test object read back differs from what was written');
      await storage.delete(key).catch((err) => {
        throw rethrown(err, 'deleting the test object');
      });
    } catch (err) {
      // a probe that wrote but could not finish leaves nothing behind if it can help it
      await storage.delete(key).catch(() => undefined);
      throw err;
    }
  }

  /** Closes the connections kept alive (at shutdown). */
  close(): void {
    this.requestHandler.httpAgent.destroy();
    this.requestHandler.httpsAgent.destroy();
  }

  open(location: BucketLocation, credentials: BucketCredentials, options: { maxAttempts?: number } = {}): S3BucketStorage {
    const secrets = credentials.type === 'access_key' ? [credentials.accessKeyId, credentials.secretAccessKey] : [];
    const role = credentials.type === 'assume_role' ? this.roleCredentials(credentials, secrets) : null;
    const s3 = new S3BlobStorage({
      bucket: location.bucket,
      region: location.region ?? 'us-east-1',
      endpoint: location.endpointUrl ?? undefined,
      prefix: objectPrefix(location.prefix),
      sseKmsKeyId: location.sseKmsKeyId,
      credentials: role ?? (credentials.type === 'access_key' ? { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey } : undefined),
      requestHandler: this.requestHandler as never,
      maxAttempts: options.maxAttempts ?? 3,
    });
    return new S3BucketStorage(s3, location, secrets, this.options.maxObjectBytes ?? 10 * 1024 ** 3);
  }

  /** Temporary credentials of the assumed role, renewed five minutes before they expire. */
  private roleCredentials(c: Extract<BucketCredentials, { type: 'assume_role' }>, secrets: string[]): () => Promise<AwsCredentialIdentity> {
    let current: AwsCredentialIdentity | null = null;
    let pending: Promise<AwsCredentialIdentity> | null = null;
    const assume = async (): Promise<AwsCredentialIdentity> => {
      try {
        const res = await this.sts.send(
          new AssumeRoleCommand({ RoleArn: c.roleArn, RoleSessionName: c.sessionName, ExternalId: c.externalId, DurationSeconds: this.options.roleSessionSeconds ?? 3600 }),
        );
        const k = res.Credentials;
        if (!k?.AccessKeyId || !k.SecretAccessKey) throw new BucketAccessError('role', 'STS answered AssumeRole without credentials');
        const identity = { accessKeyId: k.AccessKeyId, secretAccessKey: k.SecretAccessKey, sessionToken: k.SessionToken, expiration: k.Expiration };
        secrets.push(k.AccessKeyId, k.SecretAccessKey, ...(k.SessionToken ? [k.SessionToken] : []));
        return identity;
      } catch (err) {
        throw this.stsFailure(err, c, secrets);
      }
    };
    return async () => {
      const fresh = current && (!current.expiration || current.expiration.getTime() - Date.now() > 5 * 60_000);
      if (fresh) return current!;
      pending ??= assume().finally(() => (pending = null));
      current = await pending;
      return current;
    };
  }

  private stsFailure(err: unknown, c: Extract<BucketCredentials, { type: 'assume_role' }>, secrets: string[]): BucketAccessError {
    if (err instanceof BucketAccessError) return err;
    const refused = refusalIn(err);
    if (refused) return new BucketAccessError('refused', `STS endpoint: ${refused.message}`);
    const network = networkCodeIn(err);
    if (network) return new BucketAccessError('unreachable', `STS could not be reached (${network})`);
    const e = err as AwsError;
    const code = e.name ?? e.Code ?? 'Error';
    const own = this.options.sts.credentials;
    const detail = scrub(`${code}: ${e.message}`, [...secrets, ...(own ? [own.accessKeyId, own.secretAccessKey, own.sessionToken ?? ''] : [])]);
    if (code === 'CredentialsProviderError' || code === 'InvalidClientTokenId' || code === 'SignatureDoesNotMatch' || code === 'ExpiredToken') {
      return new BucketAccessError(
        'other',
        `Larder's own AWS identity could not call STS (${detail}); the operator sets it with LARDER_STS_ACCESS_KEY_ID/LARDER_STS_SECRET_ACCESS_KEY or the AWS credential chain`,
      );
    }
    return new BucketAccessError(
      'role',
      `STS refused to let Larder assume role ${c.roleArn} with external id ${c.externalId} (${detail}); the role's trust policy must allow Larder's identity with this external id`,
    );
  }
}

function rethrown(err: unknown, doing: string): BucketAccessError {
  if (err instanceof BucketAccessError) return err.failure === 'denied' || err.failure === 'other' ? new BucketAccessError(err.failure, `${doing}: ${err.message}`) : err;
  return new BucketAccessError('other', `${doing}: ${(err as Error).message}`);
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('****');
  return out.length > 500 ? `${out.slice(0, 500)}…` : out;
}

/**
 * A customer bucket as BlobStorage: every failure other than a missing object becomes a
 * BucketAccessError whose message holds no credential.
 */
export class S3BucketStorage implements BucketStorage {
  readonly kind = 's3';

  constructor(
    private readonly s3: S3BlobStorage,
    private readonly location: BucketLocation,
    private readonly secrets: string[],
    private readonly maxObjectBytes: number,
  ) {}

  private classify(err: unknown): unknown {
    if (err instanceof BlobNotFoundError || err instanceof BlobTooLargeError || err instanceof BucketAccessError) return err;
    const refused = refusalIn(err);
    if (refused) return new BucketAccessError('refused', refused.message);
    const where = this.location.endpointUrl ?? `AWS S3 (${this.location.region ?? 'us-east-1'})`;
    const network = networkCodeIn(err);
    if (network) return new BucketAccessError('unreachable', `${where} could not be reached (${network})`);
    const e = err as AwsError;
    const code = e.name ?? e.Code ?? 'Error';
    const status = e.$metadata?.httpStatusCode;
    // a HEAD answer has no body, so no error code: say what is known
    const bodiless = code === 'Unknown' || code === 'UnknownError' || e.message === 'UnknownError';
    const detail = bodiless
      ? `HTTP ${status ?? 'error'} without an error body${status === 403 ? ': the key was revoked, or it lacks the permission' : ''}`
      : scrub(`${code}${e.message && e.message !== code ? `: ${e.message}` : ''}`, this.secrets);
    const failure: BucketAccessFailure = CREDENTIAL_CODES.has(code)
      ? 'credentials'
      : code === 'NoSuchBucket'
        ? 'no_such_bucket'
        : REGION_CODES.has(code) || status === 301
          ? 'wrong_region'
          : code === 'AccessDenied' || code === 'AllAccessDisabled' || code.startsWith('KMS') || status === 403
            ? 'denied'
            : 'other';
    const what: Record<BucketAccessFailure, string> = {
      credentials: 'the credentials were refused',
      no_such_bucket: `bucket ${this.location.bucket} does not exist`,
      wrong_region: `bucket ${this.location.bucket} is not in region ${this.location.region ?? 'us-east-1'}`,
      denied: `access to bucket ${this.location.bucket} was denied`,
      other: `bucket ${this.location.bucket} answered with an error`,
      unreachable: '',
      refused: '',
      role: '',
    };
    return new BucketAccessError(failure, `${what[failure]} (${detail})`);
  }

  private async run<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw this.classify(err);
    }
  }

  put(key: string, body: Readable, options?: { contentType?: string; maxBytes?: number }): Promise<StoredBlob> {
    return this.run(() => this.s3.put(key, body, options));
  }
  /** The object's bytes, cut off with an error beyond `maxObjectBytes` (a bucket is not trusted to answer sensibly). */
  get(key: string, range?: ByteRange): Promise<Readable> {
    return this.run(async () => {
      const body = await this.s3.get(key, range);
      const limit = this.maxObjectBytes;
      let seen = 0;
      const bucket = this.location.bucket;
      return body.pipe(
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            seen += chunk.length;
            if (seen > limit) {
              body.destroy();
              return done(new BucketAccessError('other', `bucket ${bucket} answered more than ${limit} bytes for ${key}`));
            }
            done(null, chunk);
          },
        }),
      );
    });
  }
  async readAll(key: string): Promise<Buffer> {
    return this.run(async () => {
      const parts: Buffer[] = [];
      for await (const c of await this.get(key)) parts.push(c as Buffer);
      return Buffer.concat(parts);
    });
  }
  size(key: string): Promise<number | null> {
    return this.run(() => this.s3.size(key));
  }
  delete(key: string): Promise<void> {
    return this.run(() => this.s3.delete(key));
  }
  createMultipart(key: string, contentType: string): Promise<string> {
    return this.run(() => this.s3.createMultipart(key, contentType));
  }
  presignPart(key: string, storageUploadId: string, partNumber: number, expiresInSeconds: number): Promise<string | null> {
    return this.run(() => this.s3.presignPart(key, storageUploadId, partNumber, expiresInSeconds));
  }
  putPart(key: string, storageUploadId: string, partNumber: number, body: Readable, maxBytes?: number): Promise<PartInfo> {
    return this.run(() => this.s3.putPart(key, storageUploadId, partNumber, body, maxBytes));
  }
  listParts(key: string, storageUploadId: string): Promise<PartInfo[]> {
    return this.run(() => this.s3.listParts(key, storageUploadId));
  }
  completeMultipart(key: string, storageUploadId: string, parts: Array<{ partNumber: number; etag: string }>): Promise<StoredBlob> {
    return this.run(() => this.s3.completeMultipart(key, storageUploadId, parts));
  }
  abortMultipart(key: string, storageUploadId: string): Promise<void> {
    return this.run(() => this.s3.abortMultipart(key, storageUploadId));
  }
  list(prefix: string): Promise<string[]> {
    return this.run(() => this.s3.list(prefix));
  }
  deletePrefix(prefix: string): Promise<number> {
    return this.run(() => this.s3.deletePrefix(prefix));
  }
}

/** Connects customer buckets over S3 and assumes their roles with STS; the bucket storage it opens is re-exported from ./s3.bucket-storage. */
import { randomUUID } from 'crypto';
import { Readable } from 'stream';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { Agent } from 'http';
import { OutboundPolicy, OutboundRefusedError } from '@larder/outbound';
import {
  BucketAccessError,
  BucketConnector,
  BucketCredentials,
  BucketLocation,
  objectPrefix,
} from '../bucket-connector.port';
import { S3BlobStorage } from './s3.blob-storage';
import { S3BucketStorage } from './s3.bucket-storage';
import { AwsError, networkCodeIn, refusalIn, rethrown, scrub } from './s3.errors';

export { S3BucketStorage } from './s3.bucket-storage';

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

/**
 * Connects to customer buckets with the real S3 protocol (`@aws-sdk/client-s3`), and assumes roles
 * with STS (`@aws-sdk/client-sts`). Error messages are built here from error codes and the service's
 * own message, with every credential value scrubbed.
 */
export class S3BucketConnector implements BucketConnector {
  private readonly sts: STSClient;
  private readonly requestHandler: {
    httpAgent: Agent;
    httpsAgent: Agent;
    connectionTimeout: number;
    requestTimeout: number;
  };

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
      if (!back.equals(body))
        throw new BucketAccessError('other', 'the test object read back differs from what was written');
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

  open(
    location: BucketLocation,
    credentials: BucketCredentials,
    options: { maxAttempts?: number } = {},
  ): S3BucketStorage {
    const secrets = credentials.type === 'access_key' ? [credentials.accessKeyId, credentials.secretAccessKey] : [];
    const role = credentials.type === 'assume_role' ? this.roleCredentials(credentials, secrets) : null;
    const s3 = new S3BlobStorage({
      bucket: location.bucket,
      region: location.region ?? 'us-east-1',
      endpoint: location.endpointUrl ?? undefined,
      prefix: objectPrefix(location.prefix),
      sseKmsKeyId: location.sseKmsKeyId,
      credentials:
        role ??
        (credentials.type === 'access_key'
          ? { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey }
          : undefined),
      requestHandler: this.requestHandler as never,
      maxAttempts: options.maxAttempts ?? 3,
    });
    return new S3BucketStorage(s3, location, secrets, this.options.maxObjectBytes ?? 10 * 1024 ** 3);
  }

  /** Temporary credentials of the assumed role, renewed five minutes before they expire. */
  private roleCredentials(
    c: Extract<BucketCredentials, { type: 'assume_role' }>,
    secrets: string[],
  ): () => Promise<AwsCredentialIdentity> {
    let current: AwsCredentialIdentity | null = null;
    let pending: Promise<AwsCredentialIdentity> | null = null;
    const assume = async (): Promise<AwsCredentialIdentity> => {
      try {
        const res = await this.sts.send(
          new AssumeRoleCommand({
            RoleArn: c.roleArn,
            RoleSessionName: c.sessionName,
            ExternalId: c.externalId,
            DurationSeconds: this.options.roleSessionSeconds ?? 3600,
          }),
        );
        const k = res.Credentials;
        if (!k?.AccessKeyId || !k.SecretAccessKey)
          throw new BucketAccessError('role', 'STS answered AssumeRole without credentials');
        const identity = {
          accessKeyId: k.AccessKeyId,
          secretAccessKey: k.SecretAccessKey,
          sessionToken: k.SessionToken,
          expiration: k.Expiration,
        };
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

  private stsFailure(
    err: unknown,
    c: Extract<BucketCredentials, { type: 'assume_role' }>,
    secrets: string[],
  ): BucketAccessError {
    if (err instanceof BucketAccessError) return err;
    const refused = refusalIn(err);
    if (refused) return new BucketAccessError('refused', `STS endpoint: ${refused.message}`);
    const network = networkCodeIn(err);
    if (network) return new BucketAccessError('unreachable', `STS could not be reached (${network})`);
    const e = err as AwsError;
    const code = e.name ?? e.Code ?? 'Error';
    const own = this.options.sts.credentials;
    const detail = scrub(`${code}: ${e.message}`, [
      ...secrets,
      ...(own ? [own.accessKeyId, own.secretAccessKey, own.sessionToken ?? ''] : []),
    ]);
    if (
      code === 'CredentialsProviderError' ||
      code === 'InvalidClientTokenId' ||
      code === 'SignatureDoesNotMatch' ||
      code === 'ExpiredToken'
    ) {
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

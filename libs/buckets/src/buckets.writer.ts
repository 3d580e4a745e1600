import { Inject, Injectable, Logger } from '@nestjs/common';
import { BadRequestError, ConflictError, NotFoundError, ValidationFailedError, isUuid } from '@larder/kernel';
import { commandHandler, CommandResult, CommandWriter, WithoutClock, Writes } from '@larder/event-store';
import {
  BUCKET_CONNECTOR,
  BucketAccessError,
  BucketConnector,
  BucketCredentials,
  BucketLocation,
} from '@larder/blob-storage';
import { SECRET_VAULT, SecretVault } from '@larder/secrets';
import { BucketRow, BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { BucketCommand, bucketDecider, BucketState, ROTATE_ASSUME_ROLE } from './bucket.aggregate';
import { AssignBucketExternalId, bucketExternalIdDecider, BucketExternalIdState } from './bucket-external-id.aggregate';
import { BucketCredentialsInput, parseCredentials } from './bucket-credentials';
import { bucketRowFromState } from './bucket.response';
import { bucketExternalIdStream, bucketStream } from './streams';

export const BUCKET_PROJECTIONS = ['buckets'] as const;
/** The vault purpose of an access-key bucket's sealed keys (`{"access_key_id", "secret_access_key"}`). */
export const ACCESS_KEY_PURPOSE = 'bucket.access_key';

export const handleBucket = commandHandler(bucketDecider, (c: BucketCommand) => bucketStream(c.bucketId));
export const handleBucketExternalId = commandHandler(bucketExternalIdDecider, (c: AssignBucketExternalId) =>
  bucketExternalIdStream(c.organizationId),
);

export interface CreateBucketInput {
  name: string;
  provider?: 'aws_s3';
  bucket: string;
  region?: string | null;
  endpoint_url?: string | null;
  prefix?: string | null;
  sse_kms_key_id?: string | null;
  credentials?: unknown;
}

/** The role session Larder opens on a customer's role for one bucket (visible in the customer's CloudTrail). */
export const roleSessionName = (bucketId: string) => `larder-${bucketId}`;

/** Which request field a failed probe points at. */
function locOf(e: BucketAccessError, location: BucketLocation): (string | number)[] {
  switch (e.failure) {
    case 'refused':
    case 'unreachable':
      return location.endpointUrl ? ['body', 'endpoint_url'] : ['body', 'region'];
    case 'no_such_bucket':
      return ['body', 'bucket'];
    case 'wrong_region':
      return ['body', 'region'];
    case 'role':
      return ['body', 'credentials', 'role_arn'];
    case 'credentials':
    case 'denied':
      return ['body', 'credentials'];
    default:
      return ['body'];
  }
}

/**
 * Buckets: create after a successful probe, rotate access keys after probing the new
 * ones against the same bucket, delete when no store uses it. Keys go into the secret vault before
 * the event that references them is appended, and out again when that append fails.
 */
@Injectable()
export class BucketsWriter {
  private readonly logger = new Logger('Buckets');
  private readonly buckets: CommandWriter<BucketState, BucketCommand>;
  private readonly externalIds: CommandWriter<BucketExternalIdState, AssignBucketExternalId>;

  constructor(
    private readonly writes: Writes,
    private readonly reader: BucketsReader,
    private readonly stores: StoresReader,
    @Inject(SECRET_VAULT) private readonly vault: SecretVault,
    @Inject(BUCKET_CONNECTOR) private readonly connector: BucketConnector,
  ) {
    this.buckets = writes.writer(handleBucket, BUCKET_PROJECTIONS);
    this.externalIds = writes.writer(handleBucketExternalId, []);
  }

  decide(command: WithoutClock<BucketCommand>, actor: string): Promise<CommandResult<BucketState>> {
    return this.buckets.run(command, actor);
  }

  /** The bucket after a stored decision: the read model's row once it caught up, else the decided state. */
  async answer(organizationId: string, bucketId: string, result: CommandResult<BucketState>): Promise<BucketRow> {
    return this.buckets.answer(result, () => this.reader.get(organizationId, bucketId), bucketRowFromState);
  }

  private async stateOf(organizationId: string, bucketId: string): Promise<BucketState> {
    if (!isUuid(bucketId)) throw new NotFoundError(`Bucket ${bucketId} not found`);
    const s = await this.writes.fold(bucketDecider, bucketStream(bucketId));
    if (s.status === 'absent' || s.status === 'deleted' || s.organizationId !== organizationId)
      throw new NotFoundError(`Bucket ${bucketId} not found`);
    return s;
  }

  /** The organization's STS external id: assigned on first use, the same ever after. */
  async externalIdOf(organizationId: string, actor: string): Promise<string> {
    const r = await this.externalIds.run(
      { type: 'AssignBucketExternalId', organizationId, candidate: `larder-${this.writes.ids.uuid()}` },
      actor,
    );
    return r.state.externalId!;
  }

  /** Proves access before anything is saved (reach, write, delete); a failure is a 422 naming the field at fault and why. */
  private async probe(location: BucketLocation, credentials: BucketCredentials): Promise<void> {
    try {
      await this.connector.probe(location, credentials);
    } catch (err) {
      if (!(err instanceof BucketAccessError)) throw err;
      throw new ValidationFailedError([
        { loc: locOf(err, location), msg: `The bucket check failed: ${err.message}`, type: `bucket_${err.failure}` },
      ]);
    }
  }

  private sealable(c: Extract<BucketCredentialsInput, { type: 'access_key' }>): string {
    return JSON.stringify({ access_key_id: c.access_key_id, secret_access_key: c.secret_access_key });
  }

  async create(organizationId: string, actor: string, input: CreateBucketInput): Promise<BucketRow> {
    const credentials = parseCredentials(input.credentials, ['body', 'credentials']);
    const bucketId = this.writes.ids.uuid();
    const location: BucketLocation = {
      bucket: input.bucket,
      region: input.region?.trim() || null,
      endpointUrl: input.endpoint_url?.trim() || null,
      prefix: input.prefix ?? '',
      sseKmsKeyId: input.sse_kms_key_id?.trim() || null,
    };
    // the external id is the organization's (claimed before the probe, so a refused probe names the one to trust)
    const externalId = credentials.type === 'assume_role' ? await this.externalIdOf(organizationId, actor) : null;
    await this.probe(
      location,
      credentials.type === 'assume_role'
        ? {
            type: 'assume_role',
            roleArn: credentials.role_arn,
            externalId: externalId!,
            sessionName: roleSessionName(bucketId),
          }
        : {
            type: 'access_key',
            accessKeyId: credentials.access_key_id,
            secretAccessKey: credentials.secret_access_key,
          },
    );
    const validatedAt = this.writes.now();
    const secretRef =
      credentials.type === 'access_key'
        ? await this.vault.put(organizationId, ACCESS_KEY_PURPOSE, this.sealable(credentials))
        : null;
    let created: CommandResult<BucketState>;
    try {
      created = await this.decide(
        {
          type: 'CreateBucket',
          bucketId,
          organizationId,
          name: input.name,
          provider: 'aws_s3',
          bucket: location.bucket,
          region: location.region,
          endpointUrl: location.endpointUrl,
          prefix: location.prefix,
          sseKmsKeyId: location.sseKmsKeyId,
          authType: credentials.type,
          roleArn: credentials.type === 'assume_role' ? credentials.role_arn : null,
          externalId,
          secretRef,
          accessKeyIdLast4: credentials.type === 'access_key' ? credentials.access_key_id.slice(-4) : null,
          validatedAt,
        },
        actor,
      );
    } catch (err) {
      // nothing was stored: the sealed keys go again
      if (secretRef)
        await this.vault
          .remove(organizationId, secretRef)
          .catch((e: Error) =>
            this.logger.warn(`sealed keys ${secretRef} of a refused bucket not removed: ${e.message}`),
          );
      throw err;
    }
    return this.answer(organizationId, bucketId, created);
  }

  async rotate(organizationId: string, actor: string, bucketId: string, body: unknown): Promise<BucketRow> {
    const before = await this.stateOf(organizationId, bucketId);
    const c = before.created!;
    // refused before the body is even looked at (the decider refuses it too)
    if (c.authType !== 'access_key') throw new BadRequestError(ROTATE_ASSUME_ROLE(bucketId));
    const credentials = parseCredentials(body, ['body', 'credentials'], ['access_key']) as Extract<
      BucketCredentialsInput,
      { type: 'access_key' }
    >;
    // the new keys must reach the same bucket, endpoint, region and prefix the bucket was created with
    await this.probe(
      { bucket: c.bucket, region: c.region, endpointUrl: c.endpointUrl, prefix: c.prefix, sseKmsKeyId: c.sseKmsKeyId },
      { type: 'access_key', accessKeyId: credentials.access_key_id, secretAccessKey: credentials.secret_access_key },
    );
    const validatedAt = this.writes.now();
    const secretRef = await this.vault.put(organizationId, ACCESS_KEY_PURPOSE, this.sealable(credentials));
    let rotated: CommandResult<BucketState>;
    try {
      rotated = await this.decide(
        {
          type: 'RotateBucketCredentials',
          bucketId,
          organizationId,
          secretRef,
          accessKeyIdLast4: credentials.access_key_id.slice(-4),
          validatedAt,
        },
        actor,
      );
    } catch (err) {
      await this.vault
        .remove(organizationId, secretRef)
        .catch((e: Error) =>
          this.logger.warn(`sealed keys ${secretRef} of a refused rotation not removed: ${e.message}`),
        );
      throw err;
    }
    // stored: the superseded keys are discarded (a failure here leaves an unreferenced sealed row, never an error)
    if (before.secretRef)
      await this.vault
        .remove(organizationId, before.secretRef)
        .catch((e: Error) => this.logger.warn(`superseded keys ${before.secretRef} not removed: ${e.message}`));
    return this.answer(organizationId, bucketId, rotated);
  }

  async remove(
    organizationId: string,
    actor: string,
    bucketId: string,
  ): Promise<{ id: string; deleted: true; object: 'bucket' }> {
    await this.stateOf(organizationId, bucketId);
    const using = await this.stores.usingBucket(organizationId, bucketId);
    if (using.length) {
      throw new ConflictError(
        `Bucket ${bucketId} is used by ${using.length === 1 ? 'store' : 'stores'} ${using.slice(0, 5).join(', ')}${using.length > 5 ? ', …' : ''}; delete ${using.length === 1 ? 'it' : 'them'} first`,
      );
    }
    const deleted = await this.decide({ type: 'DeleteBucket', bucketId, organizationId }, actor);
    await this.buckets.settle(deleted.position);
    return { id: bucketId, deleted: true, object: 'bucket' };
  }
}

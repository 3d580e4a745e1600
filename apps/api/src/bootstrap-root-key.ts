import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ConflictError, RandomIdGenerator } from '@larder/kernel';
import { CreateOrganizationCommand } from '@larder/organizations';
import { CreateApiKeyCommand, hashSecret, newSecret, uuidFrom } from '@larder/api-keys';
import type { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import type { OrganizationsReader } from '@larder/projections/organizations/organizations.reader';
import { LarderConfig } from './config';

export const ROOT_ORGANIZATION_ID = uuidFrom('larder:root-organization');
export const ROOT_KEY_FILE = 'root-key';

export interface RootKeyResult {
  organizationId: string;
  apiKeyId: string;
  source: 'env' | 'file';
  file: string | null;
  created: boolean;
}

/** The root key's secret as configured: LARDER_ROOT_KEY, else the key file's (null where there is none yet). */
function configuredSecret(config: LarderConfig): {
  secret: string | null;
  source: RootKeyResult['source'];
  file: string | null;
} {
  if (config.rootKey) return { secret: config.rootKey, source: 'env', file: null };
  const file = join(config.dataDir, ROOT_KEY_FILE);
  return { secret: existsSync(file) ? readFileSync(file, 'utf8').trim() : null, source: 'file', file };
}

/** A root key's id, derived from its secret's hash (the same secret, the same key). */
const rootKeyIdOf = (secretHash: string) => uuidFrom(`larder:root-key:${secretHash}`);

/** The read models a restart looks in first: a root organization and key already there need no command. */
export interface RootKeyReaders {
  organizations: Pick<OrganizationsReader, 'get'>;
  apiKeys: Pick<ApiKeysReader, 'get'>;
}

/**
 * The id of this configuration's root key when it and the root organization are both in their read
 * models already (rows exist only once their streams do), else null: a restart's check, which the
 * server begins before its projection loops start (their first reads would queue ahead of it). Reads
 * the secret as `bootstrapRootKey` does, but never creates the key file; a failure answers null.
 */
export async function knownRootKey(config: LarderConfig, readers: RootKeyReaders): Promise<string | null> {
  try {
    const { secret } = configuredSecret(config);
    if (!secret) return null;
    const secretHash = hashSecret(secret);
    const apiKeyId = rootKeyIdOf(secretHash);
    const [organization, key] = await Promise.all([
      readers.organizations.get(ROOT_ORGANIZATION_ID),
      readers.apiKeys.get(ROOT_ORGANIZATION_ID, apiKeyId),
    ]);
    return organization !== null && key !== null && key.secretHash === secretHash ? apiKeyId : null;
  } catch {
    return null;
  }
}

/**
 * Creates, or keeps, the root organization and its admin key. The secret comes from LARDER_ROOT_KEY,
 * else from `<data dir>/root-key` (written with mode 0600 on the first start). Ids are derived from
 * the secret's hash, so concurrent or repeated starts append nothing new.
 *
 * When `known` (`knownRootKey`) found this very key and the root organization in their read models,
 * the two create commands, which would each read a stream and be refused as a conflict, are not run.
 * Anything else (a first start, a new LARDER_ROOT_KEY, a deleted key, a read model rebuilding) runs
 * them as before.
 */
export async function bootstrapRootKey(
  commands: CommandBus,
  config: LarderConfig,
  known?: Promise<string | null>,
): Promise<RootKeyResult> {
  const logger = new Logger('Bootstrap');
  const configured = configuredSecret(config);
  const { source, file } = configured;
  let secret = configured.secret;
  if (secret === null) {
    mkdirSync(config.dataDir, { recursive: true });
    secret = newSecret(new RandomIdGenerator());
    writeFileSync(file!, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file!, 0o600);
  }
  const apiKeyId = rootKeyIdOf(hashSecret(secret));
  let created = true;
  if (known && (await known) === apiKeyId) {
    created = false;
  } else {
    await commands.execute(new CreateOrganizationCommand('root', { organizationId: ROOT_ORGANIZATION_ID, root: true }));
    try {
      await commands.execute(
        new CreateApiKeyCommand(ROOT_ORGANIZATION_ID, 'root admin key', null, null, {
          admin: true,
          apiKeyId,
          secret,
          actor: 'bootstrap',
        }),
      );
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      created = false;
    }
  }
  if (created) {
    logger.log(
      source === 'env'
        ? `root admin key ${apiKeyId} created from LARDER_ROOT_KEY`
        : `root admin key ${apiKeyId} created; its secret is in ${file} (mode 0600)`,
    );
  } else {
    logger.log(`root admin key ${apiKeyId} kept${file ? ` (secret in ${file})` : ' (LARDER_ROOT_KEY)'}`);
  }
  return { organizationId: ROOT_ORGANIZATION_ID, apiKeyId, source, file, created };
}

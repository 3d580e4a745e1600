import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { CommandBus } from '@nestjs/cqrs';
import { ConflictError } from '@larder/kernel';
import { CreateOrganizationCommand } from '@larder/organizations';
import { CreateApiKeyCommand, hashSecret, uuidFrom } from '@larder/api-keys';
import type { ApiKeyEntity } from '@larder/projections/api-keys/api-key.entity';
import type { OrganizationEntity } from '@larder/projections/organizations/organization.entity';
import { bootstrapRootKey, knownRootKey, ROOT_ORGANIZATION_ID, RootKeyReaders } from './bootstrap-root-key';
import { loadConfig } from './config';

/**
 * The bootstrap against an in-memory model of the two aggregates and their read models: a create
 * command conflicts once its stream exists (whatever the key's status), and a read model row exists
 * while its stream's last event left one (a deleted key has none; a rebuilding read model none yet).
 */
class World {
  organizationStream = false;
  keyStreams = new Map<string, string>(); // apiKeyId → secret hash
  organizationRow = false;
  keyRows = new Map<string, string>(); // apiKeyId → secret hash
  executed: string[] = [];

  readonly commands = {
    execute: async (command: unknown) => {
      if (command instanceof CreateOrganizationCommand) {
        this.executed.push('CreateOrganization');
        if (this.organizationStream) return { organizationId: ROOT_ORGANIZATION_ID, created: false };
        this.organizationStream = this.organizationRow = true;
        return { organizationId: ROOT_ORGANIZATION_ID, created: true };
      }
      if (command instanceof CreateApiKeyCommand) {
        this.executed.push('CreateApiKey');
        const id = command.options.apiKeyId!;
        if (this.keyStreams.has(id)) throw new ConflictError(`API key ${id} already exists`);
        const hash = hashSecret(command.options.secret!);
        this.keyStreams.set(id, hash);
        this.keyRows.set(id, hash);
        return {};
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
  } as unknown as CommandBus;

  readonly readers: RootKeyReaders = {
    organizations: {
      get: async (id) => (id === ROOT_ORGANIZATION_ID && this.organizationRow ? ({ id } as OrganizationEntity) : null),
    },
    apiKeys: {
      get: async (organizationId, id) => {
        const secretHash = organizationId === ROOT_ORGANIZATION_ID ? this.keyRows.get(id) : undefined;
        return secretHash ? ({ id, organizationId, secretHash } as ApiKeyEntity) : null;
      },
    },
  };
}

describe('bootstrapRootKey', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'larder-root-key-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = (rootKey?: string) =>
    loadConfig({ LARDER_DATA_DIR: dataDir, ...(rootKey ? { LARDER_ROOT_KEY: rootKey } : {}) });
  const keyIdOf = (secret: string) => uuidFrom(`larder:root-key:${hashSecret(secret)}`);
  /** A start as the server does it: the read models looked in first, then the bootstrap. */
  const boot = (w: World, c: ReturnType<typeof config>) => bootstrapRootKey(w.commands, c, knownRootKey(c, w.readers));

  it('a first start creates the organization and the key', async () => {
    const w = new World();
    const r = await boot(w, config('lrd_first_start_key_0123456789'));
    expect(r).toMatchObject({ created: true, apiKeyId: keyIdOf('lrd_first_start_key_0123456789'), source: 'env' });
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
    expect(w.keyStreams.has(r.apiKeyId)).toBe(true);
  });

  it('a restart with the key in its read models runs no command and keeps it', async () => {
    const w = new World();
    await boot(w, config('lrd_restart_key_0123456789'));
    w.executed = [];
    const r = await boot(w, config('lrd_restart_key_0123456789'));
    expect(r).toMatchObject({ created: false, apiKeyId: keyIdOf('lrd_restart_key_0123456789') });
    expect(w.executed).toEqual([]);
  });

  it('the key file of a first start is read again by the restart, which keeps its key', async () => {
    const w = new World();
    const first = await boot(w, config());
    w.executed = [];
    const again = await boot(w, config());
    expect(first).toMatchObject({ created: true, source: 'file' });
    expect(again).toMatchObject({ created: false, source: 'file', apiKeyId: first.apiKeyId });
    expect(w.executed).toEqual([]);
  });

  it('a changed LARDER_ROOT_KEY creates the new key (the old one stays)', async () => {
    const w = new World();
    await boot(w, config('lrd_old_root_key_0123456789'));
    w.executed = [];
    const r = await boot(w, config('lrd_new_root_key_0123456789'));
    expect(r).toMatchObject({ created: true, apiKeyId: keyIdOf('lrd_new_root_key_0123456789') });
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
    expect([...w.keyStreams.keys()]).toEqual([
      keyIdOf('lrd_old_root_key_0123456789'),
      keyIdOf('lrd_new_root_key_0123456789'),
    ]);
  });

  it('a deleted root key (no row, its stream there) runs the commands as before: refused, so kept, not created', async () => {
    const w = new World();
    const first = await boot(w, config('lrd_deleted_key_0123456789'));
    w.keyRows.delete(first.apiKeyId);
    w.executed = [];
    const r = await boot(w, config('lrd_deleted_key_0123456789'));
    expect(r.created).toBe(false);
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
  });

  it('an organization read model without its row (rebuilding) runs the commands', async () => {
    const w = new World();
    await boot(w, config('lrd_rebuilding_key_0123456789'));
    w.organizationRow = false;
    w.executed = [];
    const r = await boot(w, config('lrd_rebuilding_key_0123456789'));
    expect(r.created).toBe(false);
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
  });

  it('a row under the id whose secret hash is not this secret’s runs the commands', async () => {
    const w = new World();
    const first = await boot(w, config('lrd_hash_root_key_0123456789'));
    w.keyRows.set(first.apiKeyId, 'another hash');
    w.executed = [];
    await boot(w, config('lrd_hash_root_key_0123456789'));
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
  });

  it('a known key that is not this start’s (the key file written meanwhile) runs the commands', async () => {
    const w = new World();
    await boot(w, config('lrd_known_root_key_0123456789'));
    w.executed = [];
    const r = await bootstrapRootKey(
      w.commands,
      config('lrd_other_root_key_0123456789'),
      knownRootKey(config('lrd_known_root_key_0123456789'), w.readers),
    );
    expect(r.created).toBe(true);
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
  });

  it('a failing read model answers null: the commands run', async () => {
    const w = new World();
    await boot(w, config('lrd_failing_root_key_0123456789'));
    w.executed = [];
    const failing: RootKeyReaders = {
      ...w.readers,
      apiKeys: { get: () => Promise.reject(new Error('connection refused')) },
    };
    await expect(knownRootKey(config('lrd_failing_root_key_0123456789'), failing)).resolves.toBeNull();
    await bootstrapRootKey(
      w.commands,
      config('lrd_failing_root_key_0123456789'),
      knownRootKey(config('lrd_failing_root_key_0123456789'), failing),
    );
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
  });

  it('without a lookup every start runs the commands (as before)', async () => {
    const w = new World();
    await bootstrapRootKey(w.commands, config('lrd_no_readers_key_0123456789'));
    w.executed = [];
    const r = await bootstrapRootKey(w.commands, config('lrd_no_readers_key_0123456789'));
    expect(r.created).toBe(false);
    expect(w.executed).toEqual(['CreateOrganization', 'CreateApiKey']);
  });
});

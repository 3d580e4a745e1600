import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  Clock,
  ConflictError,
  ID_GENERATOR,
  IdGenerator,
  NotFoundError,
  READ_MODEL_CONSISTENCY,
  ReadModelConsistency,
  ValidationFailedError,
} from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { FilesReader } from '@larder/projections/files/files.reader';
import { StoreCommand, storeDecider, STORE_NAME } from './store.aggregate';
import { storeNameDecider } from './store-name.aggregate';
import { storeNameStream, storeStream } from './streams';
import { ExpiresAfterData, StoreConfigData } from './events';
import { StoreFilesWriter } from './store-files.writer';

export const STORE_PROJECTIONS = ['stores', 'chunk-index'] as const;

type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> : never;

export interface CreateStoreInput {
  name?: string | null;
  description?: string | null;
  is_public?: boolean;
  license?: string | null;
  metadata?: unknown;
  expires_after?: { anchor?: 'last_active_at'; days?: number } | null;
  config?: { contextualization?: StoreConfigData['contextualization']; save_content?: boolean; lsf?: Record<string, unknown> | null } | null;
  file_ids?: string[] | null;
}

const expires = (e: CreateStoreInput['expires_after']): ExpiresAfterData | null => (e ? { anchor: 'last_active_at', days: e.days ?? 30 } : null);

/** Store lifecycle: name claims, create, update, delete, expiry. */
@Injectable()
export class StoresWriter {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
    private readonly reader: StoresReader,
    private readonly storeFiles: StoreFilesReader,
    private readonly files: FilesReader,
    private readonly storeFilesWriter: StoreFilesWriter,
  ) {}

  async resolve(organizationId: string, identifier: string): Promise<StoreRow> {
    const row = await this.reader.get(organizationId, identifier);
    if (!row) throw new NotFoundError(`Store ${identifier} not found`);
    return row;
  }

  async decide(command: WithoutClock<StoreCommand>, actor: string) {
    const result = await handleCommand(this.store, storeStream(command.storeId), storeDecider, { ...command, now: this.clock.now() } as StoreCommand, { orgId: command.organizationId, actor }, { newIds: () => this.ids.uuid() });
    await this.consistency.waitFor(STORE_PROJECTIONS, result.position);
    return result;
  }

  /** Claims `name` for `storeId`; takes over a claim whose store never came to exist (a crash between claim and create). */
  private async claim(organizationId: string, name: string, storeId: string, actor: string): Promise<void> {
    const stream = storeNameStream(organizationId, name);
    const history = await this.store.readStream(stream);
    const last = history[history.length - 1];
    let orphanHolder = false;
    if (last?.type === 'StoreNameClaimed') {
      const holder = (last.data as { storeId: string }).storeId;
      const holderCreated = (await this.store.readStream(storeStream(holder), { maxCount: 1 })).length > 0;
      orphanHolder = !holderCreated && this.clock.now().getTime() - last.createdAt.getTime() > 30_000;
    }
    await handleCommand(this.store, stream, storeNameDecider, { type: 'ClaimStoreName', organizationId, name, storeId, now: this.clock.now(), orphanHolder }, { orgId: organizationId, actor }, { newIds: () => this.ids.uuid() });
  }

  private async release(organizationId: string, name: string, storeId: string, actor: string): Promise<void> {
    await handleCommand(this.store, storeNameStream(organizationId, name), storeNameDecider, { type: 'ReleaseStoreName', organizationId, name, storeId, now: this.clock.now() }, { orgId: organizationId, actor }, { newIds: () => this.ids.uuid() });
  }

  private checkName(name: string, loc: (string | number)[]): void {
    if (!STORE_NAME.test(name)) {
      throw new ValidationFailedError([{ loc, msg: 'Store names are 1–128 characters of lowercase letters, digits, "." and "-"', type: 'value_error', input: name }]);
    }
  }

  async create(organizationId: string, actor: string, input: CreateStoreInput): Promise<StoreRow> {
    const storeId = this.ids.uuid();
    const name = input.name ?? `store-${storeId.slice(0, 8)}`;
    this.checkName(name, ['body', 'name']);
    const fileIds = [...new Set(input.file_ids ?? [])];
    for (const [i, id] of fileIds.entries()) {
      if (!(await this.files.get(organizationId, id))) throw new ValidationFailedError([{ loc: ['body', 'file_ids', i], msg: `File ${id} not found`, type: 'value_error', input: id }]);
    }
    await this.claim(organizationId, name, storeId, actor);
    const config: StoreConfigData = {
      contextualization: input.config?.contextualization ?? false,
      save_content: input.config?.save_content ?? true,
      ...(input.config?.lsf !== undefined ? { lsf: input.config.lsf } : {}),
    };
    try {
      await this.decide(
        {
          type: 'CreateStore',
          storeId,
          organizationId,
          name,
          description: input.description ?? null,
          isPublic: input.is_public ?? false,
          license: input.license ?? null,
          metadata: input.metadata ?? null,
          config,
          expiresAfter: expires(input.expires_after),
        },
        actor,
      );
    } catch (err) {
      await this.release(organizationId, name, storeId, actor).catch(() => undefined);
      throw err;
    }
    for (const fileId of fileIds) await this.storeFilesWriter.add(organizationId, actor, storeId, { file_id: fileId });
    return this.resolve(organizationId, storeId);
  }

  async update(organizationId: string, actor: string, identifier: string, input: Omit<CreateStoreInput, 'config' | 'file_ids'>): Promise<StoreRow> {
    const before = await this.resolve(organizationId, identifier);
    const rename = input.name !== undefined && input.name !== null && input.name !== before.name;
    if (rename) {
      this.checkName(input.name!, ['body', 'name']);
      await this.claim(organizationId, input.name!, before.id, actor);
    }
    try {
      await this.decide(
        {
          type: 'UpdateStore',
          storeId: before.id,
          organizationId,
          ...(rename ? { name: input.name! } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.is_public !== undefined ? { isPublic: input.is_public } : {}),
          ...(input.license !== undefined ? { license: input.license } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.expires_after !== undefined ? { expiresAfter: expires(input.expires_after) } : {}),
        },
        actor,
      );
    } catch (err) {
      if (rename) await this.release(organizationId, input.name!, before.id, actor).catch(() => undefined);
      throw err;
    }
    if (rename) await this.release(organizationId, before.name, before.id, actor);
    return this.resolve(organizationId, before.id);
  }

  async remove(organizationId: string, actor: string, identifier: string): Promise<{ id: string; deleted: true; object: 'store' }> {
    const before = await this.resolve(organizationId, identifier);
    if (before.copyState?.status === 'in_progress') throw new ConflictError(`Store ${before.name} is being copied; delete it when the copy has finished`);
    await this.decide({ type: 'DeleteStore', storeId: before.id, organizationId }, actor);
    await this.release(organizationId, before.name, before.id, actor);
    return { id: before.id, deleted: true, object: 'store' };
  }

  /** Moves stores past their inactivity expiry to `expired` (called by the sweeper). */
  async expireDue(): Promise<number> {
    const due = await this.reader.expiredBy(this.clock.now());
    for (const s of due) await this.decide({ type: 'ExpireStore', storeId: s.id, organizationId: s.organizationId }, 'system').catch(() => undefined);
    return due.length;
  }

  /**
   * Copies a store: a new store whose files reference the source's chunk and vector artifacts, so
   * nothing is parsed or embedded again. Runs in the background; both stores show `copy_state`.
   */
  async copy(organizationId: string, actor: string, identifier: string, input: { name: string; description?: string | null; metadata?: unknown }): Promise<StoreRow> {
    const source = await this.resolve(organizationId, identifier);
    if (source.copyState?.status === 'in_progress') throw new ConflictError(`Store ${source.name} is already being copied`);
    if ((await this.storeFiles.countInProgress(source.id)) > 0) throw new ConflictError(`Store ${source.name} has files still processing; copy it when they are done`);
    const target = await this.create(organizationId, actor, {
      name: input.name,
      description: input.description !== undefined ? input.description : source.description,
      metadata: input.metadata !== undefined ? input.metadata : source.metadata,
      is_public: source.isPublic,
      license: source.license,
      expires_after: source.expiresAfter,
      config: source.config as CreateStoreInput['config'],
    });
    await this.decide({ type: 'StartCopy', storeId: source.id, organizationId, role: 'source', peerStoreId: target.id }, actor);
    await this.decide({ type: 'StartCopy', storeId: target.id, organizationId, role: 'target', peerStoreId: source.id }, actor);
    void this.runCopy(organizationId, actor, source.id, target.id);
    return this.resolve(organizationId, target.id);
  }

  private async runCopy(organizationId: string, actor: string, sourceId: string, targetId: string): Promise<void> {
    let error: string | null = null;
    try {
      for (const f of await this.storeFiles.allOfStore(sourceId)) {
        if (f.status !== 'completed' || !f.chunksKey) continue;
        await this.storeFilesWriter.addCopy(organizationId, actor, targetId, f);
      }
    } catch (err) {
      error = (err as Error).message;
    }
    await this.decide({ type: 'FinishCopy', storeId: targetId, organizationId, role: 'target', peerStoreId: sourceId, error }, actor).catch(() => undefined);
    await this.decide({ type: 'FinishCopy', storeId: sourceId, organizationId, role: 'source', peerStoreId: targetId, error: null }, actor).catch(() => undefined);
  }
}

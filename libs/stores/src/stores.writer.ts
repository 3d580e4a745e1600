import { Injectable } from '@nestjs/common';
import { BadRequestError, ConflictError, NotFoundError, ValidationFailedError } from '@larder/kernel';
import { commandHandler, CommandResult, CommandWriter, WithoutClock, Writes } from '@larder/event-store';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { FilesReader } from '@larder/projections/files/files.reader';
import { BucketsReader } from '@larder/projections/buckets/buckets.reader';
import { StoreCommand, storeDecider, STORE_NAME, StoreState } from './store.aggregate';
import { StoreNameCommand, storeNameDecider, StoreNameState } from './store-name.aggregate';
import { storeNameStream, storeStream } from './streams';
import { ChunkingData, ExpiresAfterData, StoreConfigData } from './events';
import { StoreFileAttacher } from './commands/add-store-file/store-file-attacher';

export const STORE_PROJECTIONS = ['stores', 'chunk-index'] as const;

export interface CreateStoreInput {
  name?: string | null;
  /**
   * Free text shown as OpenAI's vector store `name` (not unique, any characters). Without `name`, the
   * store's identifier is derived from it (`derivedStoreName`).
   */
  display_name?: string | null;
  description?: string | null;
  is_public?: boolean;
  license?: string | null;
  metadata?: unknown;
  expires_after?: { anchor?: 'last_active_at'; days?: number } | null;
  config?: {
    contextualization?: StoreConfigData['contextualization'];
    save_content?: boolean;
    lsf?: Record<string, unknown> | null;
    chunking?: ChunkingData | null;
  } | null;
  file_ids?: string[] | null;
  /** A bucket of the organization that keeps the store's file content and chunk artifacts (null: platform storage). */
  bucket_id?: string | null;
}

export const handleStore = commandHandler(storeDecider, (c: StoreCommand) => storeStream(c.storeId));
const handleStoreName = commandHandler(storeNameDecider, (c: StoreNameCommand) =>
  storeNameStream(c.organizationId, c.name),
);

/** How long a claim whose store is still being created or renamed is protected from takeover. */
const CLAIM_GRACE_MS = 30_000;

/** A store as its decided state shows it (the answer of a write whose read model is late). */
export function storeRowFromState(id: string, s: StoreState, before: StoreRow | null): StoreRow {
  const v = s.view!;
  const copy = v.copyState;
  const status =
    s.status === 'expired'
      ? 'expired'
      : copy?.role === 'target'
        ? copy.status === 'failed'
          ? 'failed'
          : 'in_progress'
        : 'completed';
  const empty = { pending: 0, in_progress: 0, cancelled: 0, completed: 0, failed: 0, total: 0 };
  return {
    id,
    organizationId: s.organizationId!,
    name: s.name!,
    displayName: v.displayName ?? null,
    description: v.description,
    isPublic: v.isPublic,
    license: v.license,
    metadata: v.metadata ?? null,
    config: v.config,
    expiresAfter: v.expiresAfter,
    status,
    copyState: copy,
    createdAt: new Date(v.createdAt),
    updatedAt: new Date(v.updatedAt),
    lastActiveAt: new Date(v.updatedAt),
    fileCounts: before?.fileCounts ?? empty,
    usageBytes: before?.usageBytes ?? 0,
    usageTokens: before?.usageTokens ?? 0,
    bucketId: s.bucketId,
  };
}

/**
 * The identifier (`name`) of a store created with a free-text name only (through the OpenAI API): the
 * text as a slug, then the first 8 characters of the store id, so that two stores with one free-text
 * name get two identifiers ("Sourdough Notes" → `sourdough-notes-1a2b3c4d`); `store-<8>` when nothing
 * of the text survives.
 */
export function derivedStoreName(displayName: string, storeId: string): string {
  const slug = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100)
    .replace(/[-.]+$/g, '');
  return `${slug || 'store'}-${storeId.slice(0, 8)}`;
}

const expires = (e: CreateStoreInput['expires_after']): ExpiresAfterData | null =>
  e ? { anchor: 'last_active_at', days: e.days ?? 30 } : null;

/** Store lifecycle: name claims, create, update, delete, expiry. */
@Injectable()
export class StoresWriter {
  private readonly stores: CommandWriter<StoreState, StoreCommand>;
  private readonly names: CommandWriter<StoreNameState, StoreNameCommand>;

  constructor(
    private readonly writes: Writes,
    private readonly reader: StoresReader,
    private readonly storeFiles: StoreFilesReader,
    private readonly files: FilesReader,
    private readonly attacher: StoreFileAttacher,
    private readonly buckets: BucketsReader,
  ) {
    this.stores = writes.writer(handleStore, STORE_PROJECTIONS);
    this.names = writes.writer(handleStoreName, []);
  }

  async resolve(organizationId: string, identifier: string): Promise<StoreRow> {
    const row = await this.reader.get(organizationId, identifier);
    if (!row) throw new NotFoundError(`Store ${identifier} not found`);
    return row;
  }

  /** Appends one store decision. Waiting for the read models is `answer`'s job, after the append. */
  decide(command: WithoutClock<StoreCommand>, actor: string): Promise<CommandResult<StoreState>> {
    return this.stores.run(command, actor);
  }

  /** The store after a stored decision: the read model's row once it caught up, else the decided state (the response says reads lag). */
  async answer(
    organizationId: string,
    storeId: string,
    result: CommandResult<StoreState>,
    before: StoreRow | null = null,
  ): Promise<StoreRow> {
    return this.stores.answer(
      result,
      () => this.reader.get(organizationId, storeId),
      (s) => {
        if (!s.view) throw new NotFoundError(`Store ${storeId} not found`);
        return storeRowFromState(storeId, s, before);
      },
    );
  }

  private stateOf(storeId: string): Promise<StoreState> {
    return this.writes.fold(storeDecider, storeStream(storeId));
  }

  /**
   * Claims `name` for `storeId`. A claim is taken over when its holder is deleted (a crash between the
   * delete and the release), or, after a grace period, when its holder never came to exist or no
   * longer has that name (a crash between claim and create or rename).
   */
  private async claim(organizationId: string, name: string, storeId: string, actor: string): Promise<void> {
    const history = await this.writes.store.readStream(storeNameStream(organizationId, name));
    const last = history[history.length - 1];
    let orphanHolder = false;
    if (last?.type === 'StoreNameClaimed') {
      const holder = await this.stateOf((last.data as { storeId: string }).storeId);
      const graceOver = this.writes.now().getTime() - last.createdAt.getTime() > CLAIM_GRACE_MS;
      orphanHolder = holder.status === 'deleted' || (graceOver && (holder.status === 'absent' || holder.name !== name));
    }
    await this.names.run({ type: 'ClaimStoreName', organizationId, name, storeId, orphanHolder }, actor);
  }

  private async release(organizationId: string, name: string, storeId: string, actor: string): Promise<void> {
    await this.names.run({ type: 'ReleaseStoreName', organizationId, name, storeId }, actor);
  }

  private checkName(name: string, loc: (string | number)[]): void {
    if (!STORE_NAME.test(name)) {
      throw new ValidationFailedError([
        {
          loc,
          msg: 'Store names are 1–128 characters of lowercase letters, digits, "." and "-"',
          type: 'value_error',
          input: name,
        },
      ]);
    }
  }

  async create(organizationId: string, actor: string, input: CreateStoreInput): Promise<StoreRow> {
    const storeId = this.writes.ids.uuid();
    const name =
      input.name ??
      (input.display_name ? derivedStoreName(input.display_name, storeId) : `store-${storeId.slice(0, 8)}`);
    this.checkName(name, ['body', 'name']);
    const fileIds = [...new Set(input.file_ids ?? [])];
    for (const [i, id] of fileIds.entries()) {
      if (!(await this.files.get(organizationId, id)))
        throw new ValidationFailedError([
          { loc: ['body', 'file_ids', i], msg: `File ${id} not found`, type: 'value_error', input: id },
        ]);
    }
    const bucketId = input.bucket_id ?? null;
    if (bucketId && !(await this.buckets.get(organizationId, bucketId))) {
      throw new ValidationFailedError([
        { loc: ['body', 'bucket_id'], msg: `Bucket ${bucketId} not found`, type: 'value_error', input: bucketId },
      ]);
    }
    await this.claim(organizationId, name, storeId, actor);
    const config: StoreConfigData = {
      contextualization: input.config?.contextualization ?? false,
      save_content: input.config?.save_content ?? true,
      ...(input.config?.lsf !== undefined ? { lsf: input.config.lsf } : {}),
      ...(input.config?.chunking ? { chunking: input.config.chunking } : {}),
    };
    let created: CommandResult<StoreState>;
    try {
      created = await this.decide(
        {
          type: 'CreateStore',
          storeId,
          organizationId,
          name,
          displayName: input.display_name ?? null,
          description: input.description ?? null,
          isPublic: input.is_public ?? false,
          license: input.license ?? null,
          metadata: input.metadata ?? null,
          config,
          expiresAfter: expires(input.expires_after),
          bucketId,
        },
        actor,
      );
    } catch (err) {
      // the append itself failed: nothing was stored, so the claim is given back
      await this.release(organizationId, name, storeId, actor).catch(() => undefined);
      throw err;
    }
    if (!fileIds.length) return this.answer(organizationId, storeId, created);
    // the store as created, handed to the attach: the stores read model may not list it yet
    const store = await this.answer(organizationId, storeId, created);
    for (const fileId of fileIds) await this.attacher.add(organizationId, actor, store, { file_id: fileId });
    return this.answer(organizationId, storeId, created);
  }

  async update(
    organizationId: string,
    actor: string,
    identifier: string,
    input: Omit<CreateStoreInput, 'config' | 'file_ids'>,
  ): Promise<StoreRow> {
    const before = await this.resolve(organizationId, identifier);
    const rename = input.name !== undefined && input.name !== null && input.name !== before.name;
    if (rename) {
      this.checkName(input.name!, ['body', 'name']);
      await this.claim(organizationId, input.name!, before.id, actor);
    }
    let updated: CommandResult<StoreState>;
    try {
      updated = await this.decide(
        {
          type: 'UpdateStore',
          storeId: before.id,
          organizationId,
          ...(rename ? { name: input.name! } : {}),
          ...(input.display_name !== undefined ? { displayName: input.display_name } : {}),
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
    return this.answer(organizationId, before.id, updated, before);
  }

  async remove(
    organizationId: string,
    actor: string,
    identifier: string,
  ): Promise<{ id: string; deleted: true; object: 'store' }> {
    const before = await this.resolve(organizationId, identifier);
    if (before.copyState?.status === 'in_progress')
      throw new ConflictError(`Store ${before.name} is being copied; delete it when the copy has finished`);
    const deleted = await this.decide({ type: 'DeleteStore', storeId: before.id, organizationId }, actor);
    // A crash before this release leaves a claim whose holder is deleted, which the next claim takes over.
    await this.release(organizationId, before.name, before.id, actor);
    await this.stores.settle(deleted.position);
    return { id: before.id, deleted: true, object: 'store' };
  }

  /** Moves stores past their inactivity expiry to `expired` (called by the sweeper). */
  async expireDue(): Promise<number> {
    const due = await this.reader.expiredBy(this.writes.now());
    for (const s of due) {
      const r = await this.decide(
        { type: 'ExpireStore', storeId: s.id, organizationId: s.organizationId },
        'system',
      ).catch(() => null);
      if (r) await this.stores.settle(r.position);
    }
    return due.length;
  }

  /**
   * Copies a store: a new store whose files reference the source's chunk and vector artifacts, so
   * nothing is parsed or embedded again. This creates the target and records `StoreCopyStarted` on it;
   * the store-copy reactor does the rest and resumes after a crash. Both stores show `copy_state`.
   */
  async copy(
    organizationId: string,
    actor: string,
    identifier: string,
    input: { name: string; description?: string | null; metadata?: unknown },
  ): Promise<StoreRow> {
    const source = await this.resolve(organizationId, identifier);
    // its files' artifacts live in the bucket below the source store's own folder, which its deletion empties
    if (source.bucketId)
      throw new BadRequestError(
        `Store ${source.name} keeps its files in bucket ${source.bucketId}; stores in a bucket cannot be copied`,
      );
    if (source.copyState?.status === 'in_progress')
      throw new ConflictError(`Store ${source.name} is already being copied`);
    if ((await this.storeFiles.countInProgress(source.id)) > 0)
      throw new ConflictError(`Store ${source.name} has files still processing; copy it when they are done`);
    const target = await this.create(organizationId, actor, {
      name: input.name,
      description: input.description !== undefined ? input.description : source.description,
      metadata: input.metadata !== undefined ? input.metadata : source.metadata,
      is_public: source.isPublic,
      license: source.license,
      expires_after: source.expiresAfter,
      config: source.config as CreateStoreInput['config'],
    });
    const started = await this.decide(
      { type: 'StartCopy', storeId: target.id, organizationId, role: 'target', peerStoreId: source.id },
      actor,
    );
    return this.answer(organizationId, target.id, started, target);
  }
}

import { Inject, Injectable, Logger as NestLogger } from '@nestjs/common';
import { ConflictError, FileReferences, FILE_UPLOADER, FileUploader, NotFoundError } from '@larder/kernel';
import { commandHandler, CommandResult, Writes } from '@larder/event-store';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFileCommand, storeFileDecider, StoreFileState } from './store-file.aggregate';
import { storeExternalIdDecider, ClaimStoreExternalId } from './store-external-id.aggregate';
import { storeExternalIdStream, storeFileStream } from './streams';
import { ParsingStrategy } from './events';

export const STORE_FILE_PROJECTIONS = ['stores', 'chunk-index'] as const;

type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> : never;

export const handleStoreFile = commandHandler(storeFileDecider, (c: StoreFileCommand) => storeFileStream(c.storeId, c.fileId));
// every concurrent upsert of one external id competes for this stream: each retry round lets one through
const handleExternalId = commandHandler(storeExternalIdDecider, (c: ClaimStoreExternalId) => storeExternalIdStream(c.storeId, c.externalId), { retries: 200 });

/** A store file as its decided state shows it (the answer of a write whose read model is late). */
export function storeFileRowFromState(s: StoreFileState, before: StoreFileRow | null): StoreFileRow | null {
  const a = s.added;
  if (!s.present || !a) return null;
  const copied = a.copiedFrom ?? null;
  return {
    storeId: a.storeId,
    fileId: a.fileId,
    organizationId: a.organizationId,
    generation: s.generation,
    filename: a.filename,
    mimeType: a.mimeType,
    bytes: a.bytes,
    sha256: a.sha256,
    blobKey: a.blobKey,
    fileVersion: a.fileVersion,
    metadata: s.metadata,
    externalId: a.externalId,
    parsingStrategy: a.parsingStrategy,
    contextualization: a.contextualization,
    status: s.status ?? 'pending',
    lastError: before?.lastError ?? null,
    attempt: s.attempt,
    workerId: s.workerId,
    leaseExpiresAt: s.leaseExpiresAt,
    retryAt: before?.retryAt ?? null,
    chunksKey: s.parsed?.chunksKey ?? copied?.chunksKey ?? null,
    vectorsKey: before?.vectorsKey ?? copied?.vectorsKey ?? null,
    model: before?.model ?? copied?.model ?? null,
    chunkCount: s.parsed?.chunkCount ?? copied?.chunkCount ?? 0,
    usageTokens: s.parsed?.usageTokens ?? copied?.usageTokens ?? 0,
    createdAt: before?.createdAt ?? new Date(a.at),
    updatedAt: before?.updatedAt ?? new Date(a.at),
    bucketId: a.bucketId ?? null,
  };
}

export interface AddStoreFileInput {
  file_id: string;
  metadata?: unknown;
  config?: { parsing_strategy?: ParsingStrategy } | null;
  experimental?: { parsing_strategy?: ParsingStrategy } | null;
  external_id?: string | null;
  overwrite?: boolean;
}

/** Store files: attach, metadata, remove; the ingestion worker records its progress through `decide`. */
@Injectable()
export class StoreFilesWriter implements FileReferences {
  private readonly logger = new NestLogger('StoreFiles');
  constructor(
    private readonly writes: Writes,
    private readonly stores: StoresReader,
    private readonly reader: StoreFilesReader,
    @Inject(FILE_UPLOADER) private readonly uploader: FileUploader,
  ) {}

  /** Appends one store-file decision; with `wait`, then waits for the read models (late: the response says so, the write stands). */
  async decide(command: WithoutClock<StoreFileCommand>, actor: string, wait = true): Promise<CommandResult<StoreFileState> & { settled: boolean }> {
    const result = await this.writes.run(handleStoreFile, { ...command, now: this.writes.now() }, { orgId: command.organizationId, actor });
    const settled = wait ? await this.writes.settle(STORE_FILE_PROJECTIONS, result.position) : false;
    return { ...result, settled };
  }

  /** The store file after a decision: the read model's row once it caught up, else the decided state. */
  private async answer(organizationId: string, storeId: string, fileId: string, result: CommandResult<StoreFileState> & { settled: boolean }, before: StoreFileRow | null): Promise<StoreFileRow> {
    // the write is stored: a failing read falls back to the decided state rather than failing the write
    const row = result.settled || !result.position ? await this.reader.get(organizationId, storeId, fileId).catch(() => null) : null;
    return row ?? storeFileRowFromState(result.state, before) ?? before!;
  }

  private stateOf(storeId: string, fileId: string): Promise<StoreFileState> {
    return this.writes.fold(storeFileDecider, storeFileStream(storeId, fileId));
  }

  /** The generation a store file is at, from its own stream; null once it is removed. */
  async currentGeneration(storeId: string, fileId: string): Promise<number | null> {
    const s = await this.stateOf(storeId, fileId);
    return s.present ? s.generation : null;
  }

  /** Removes a store file that another write superseded; already gone is fine. */
  private async removeSuperseded(organizationId: string, storeId: string, fileId: string, actor: string): Promise<void> {
    await this.decide({ type: 'RemoveStoreFile', storeId, organizationId, fileId, reason: 'overwritten' }, actor, false).catch((err) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }

  async resolveStore(organizationId: string, identifier: string): Promise<StoreRow> {
    const s = await this.stores.get(organizationId, identifier);
    if (!s) throw new NotFoundError(`Store ${identifier} not found`);
    return s;
  }

  private assertWritable(s: StoreRow): void {
    if (s.copyState?.status === 'in_progress') throw new ConflictError(`Store ${s.name} is being copied; its files cannot change until the copy has finished`);
  }

  /**
   * Before reading chunks beside a store file read from the `stores` read model: the chunk index has
   * applied at least what that read model has, so a `completed` file comes with its embedded chunks.
   */
  async chunkIndexCaughtUp(): Promise<void> {
    const at = (await this.writes.consistency.positionOf?.('stores')) ?? null;
    await this.writes.settle(['chunk-index'], at);
  }

  async get(organizationId: string, storeIdentifier: string, fileIdentifier: string): Promise<StoreFileRow> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    return f;
  }

  async add(organizationId: string, actor: string, storeIdentifier: string, input: AddStoreFileInput): Promise<StoreFileRow> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    // the file's own stream, not the files read model: a file uploaded a moment ago may not be listed yet
    const file = await this.uploader.find(organizationId, input.file_id);
    if (!file) throw new NotFoundError(`File ${input.file_id} not found`);
    const strategy: ParsingStrategy = input.experimental?.parsing_strategy ?? input.config?.parsing_strategy ?? 'fast';
    const externalId = input.external_id ?? null;
    // the store file's own stream, not the read model (which may lag), says whether it is there
    const existing = await this.stateOf(s.id, file.id);
    if (existing.present && existing.added) {
      // Upsert: the same content and options only update metadata; anything else re-ingests.
      const a = existing.added;
      const same = a.fileVersion === file.version && a.sha256 === file.sha256 && a.parsingStrategy === strategy && a.externalId === externalId;
      const before = await this.reader.get(organizationId, s.id, file.id);
      if (same) {
        if (input.metadata === undefined) return before ?? storeFileRowFromState(existing, null)!;
        const r = await this.decide({ type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: file.id, metadata: input.metadata }, actor);
        return this.answer(organizationId, s.id, file.id, r, before);
      }
      await this.removeSuperseded(organizationId, s.id, file.id, actor);
    }
    if (externalId) {
      // Files that held the external id before claims existed (read before the claim: none of them is a later claimant's).
      const legacy = (await this.reader.byExternalId(s.id, externalId)).filter((f) => f.fileId !== file.id);
      const history = await this.writes.store.readStream(storeExternalIdStream(s.id, externalId));
      const holder = history.length ? (history[history.length - 1].data as { fileId: string }).fileId : null;
      const holderPresent = holder !== null && holder !== file.id && (await this.stateOf(s.id, holder)).present;
      if (!history.length && legacy.length && input.overwrite === false) throw new ConflictError(`A file with external_id '${externalId}' already exists in store ${s.name}`);
      const claim = await this.writes.run(
        handleExternalId,
        { type: 'ClaimStoreExternalId', organizationId, storeId: s.id, externalId, fileId: file.id, overwrite: input.overwrite !== false, holderPresent, now: this.writes.now() },
        { orgId: organizationId, actor },
      );
      const previous = (claim.events[0]?.data as { previousFileId?: string | null } | undefined)?.previousFileId ?? null;
      const superseded = new Set([...(history.length ? [] : legacy.map((f) => f.fileId)), ...(previous ? [previous] : [])]);
      superseded.delete(file.id);
      for (const id of superseded) await this.removeSuperseded(organizationId, s.id, id, actor);
    }
    const added = await this.decide(
      {
        type: 'AddStoreFile',
        storeId: s.id,
        organizationId,
        fileId: file.id,
        filename: file.filename,
        mimeType: file.mimeType,
        bytes: Number(file.bytes),
        sha256: file.sha256,
        blobKey: file.blobKey,
        fileVersion: file.version,
        metadata: input.metadata ?? null,
        externalId,
        parsingStrategy: strategy,
        contextualization: s.config.contextualization as boolean,
        ...(s.bucketId ? { bucketId: s.bucketId } : {}),
      },
      actor,
    );
    // Stored: from here on nothing may turn this into an error.
    if (externalId) await this.dropIfSuperseded(organizationId, s.id, externalId, file.id, actor);
    return this.answer(organizationId, s.id, file.id, added, null);
  }

  /**
   * A concurrent upsert of the same external id may have claimed it between this file's claim and its
   * add, and found nothing to remove yet: the file that no longer holds the claim removes itself, so
   * exactly one store file keeps the external id.
   */
  private async dropIfSuperseded(organizationId: string, storeId: string, externalId: string, fileId: string, actor: string): Promise<void> {
    try {
      const history = await this.writes.store.readStream(storeExternalIdStream(storeId, externalId));
      const holder = history.length ? (history[history.length - 1].data as { fileId: string }).fileId : null;
      if (holder !== fileId) await this.removeSuperseded(organizationId, storeId, fileId, actor);
    } catch (err) {
      this.logger.warn(`store ${storeId}: checking external_id holder of ${fileId} failed: ${(err as Error).message}`);
    }
  }

  /** Queues every store file of the store (in `statuses`, when given) for ingestion again; answers how many. */
  async reingest(organizationId: string, actor: string, storeIdentifier: string, statuses: string[] | null, billable: boolean): Promise<number> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    let last = null;
    let n = 0;
    for (const f of await this.reader.allOfStore(s.id)) {
      if (statuses && !statuses.includes(f.status)) continue;
      const r = await this.decide(
        { type: 'ReingestStoreFile', storeId: s.id, organizationId, fileId: f.fileId, filename: f.filename, externalId: f.externalId, metadata: f.metadata, billable },
        actor,
        false,
      ).catch((err: Error) => {
        if (err instanceof NotFoundError) return null; // removed meanwhile
        throw err;
      });
      if (r?.position) last = r.position;
      if (r) n++;
    }
    if (last) await this.writes.settle(STORE_FILE_PROJECTIONS, last);
    return n;
  }

  async updateMetadata(organizationId: string, actor: string, storeIdentifier: string, fileIdentifier: string, metadata: unknown): Promise<StoreFileRow> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    const r = await this.decide({ type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: f.fileId, metadata: metadata ?? null }, actor);
    return this.answer(organizationId, s.id, f.fileId, r, f);
  }

  async remove(organizationId: string, actor: string, storeIdentifier: string, fileIdentifier: string): Promise<{ id: string; deleted: true; object: 'store.file' }> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    await this.decide({ type: 'RemoveStoreFile', storeId: s.id, organizationId, fileId: f.fileId, reason: 'deleted' }, actor);
    return { id: f.fileId, deleted: true, object: 'store.file' };
  }

  /** FileReferences: the Files API deletes a file only after every store has dropped it. */
  async removeEverywhere(organizationId: string, fileId: string, actor: string): Promise<void> {
    for (const f of await this.reader.storesHolding(organizationId, fileId)) {
      await this.decide({ type: 'RemoveStoreFile', storeId: f.storeId, organizationId, fileId, reason: 'file_deleted' }, actor).catch((err) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
    }
  }
}

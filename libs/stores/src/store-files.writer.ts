import { Inject, Injectable, Logger as NestLogger } from '@nestjs/common';
import { ConflictError, FileReferences, FILE_UPLOADER, FileUploader, maxPosition, NotFoundError, Position } from '@larder/kernel';
import { commandHandler, CommandWriter, Decided, foldEvents, WithoutClock, Writes } from '@larder/event-store';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFileCommand, storeFileDecider, StoreFileState } from './store-file.aggregate';
import { StoreExternalIds } from './store-external-ids';
import { storeFileStream } from './streams';
import { ChunkingData, ParsingStrategy } from './events';
import { embedsMetadata } from '@larder/ingestion/embedding-context';
import { chunkingFor } from '@larder/ingestion/chunker';

export const STORE_FILE_PROJECTIONS = ['stores', 'chunk-index'] as const;

export const handleStoreFile = commandHandler(storeFileDecider, (c: StoreFileCommand) => storeFileStream(c.storeId, c.fileId));

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
    chunking: a.chunking ?? null,
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
  config?: { parsing_strategy?: ParsingStrategy; max_chunk_size?: number | null } | null;
  experimental?: { parsing_strategy?: ParsingStrategy; max_chunk_size?: number | null } | null;
  external_id?: string | null;
  overwrite?: boolean;
  /** A chunk size for this file (OpenAI's static `chunking_strategy`); absent: the store's, else the parsing strategy's. */
  chunking?: ChunkingData | null;
}

const sameChunking = (a: ChunkingData | null | undefined, b: ChunkingData | null) => (a ?? null) === b || (!!a && !!b && a.maxTokens === b.maxTokens && a.overlapTokens === b.overlapTokens);

/** Store files: attach, metadata, remove; the ingestion worker records its progress through `decide`. */
@Injectable()
export class StoreFilesWriter implements FileReferences {
  private readonly logger = new NestLogger('StoreFiles');
  private readonly storeFiles: CommandWriter<StoreFileState, StoreFileCommand>;

  constructor(
    private readonly writes: Writes,
    private readonly stores: StoresReader,
    private readonly reader: StoreFilesReader,
    private readonly externalIds: StoreExternalIds,
    @Inject(FILE_UPLOADER) private readonly uploader: FileUploader,
  ) {
    this.storeFiles = writes.writer(handleStoreFile, STORE_FILE_PROJECTIONS);
  }

  /** Appends one store-file decision; with `wait`, then waits for the read models (late: the response says so, the write stands). */
  decide(command: WithoutClock<StoreFileCommand>, actor: string, wait = true): Promise<Decided<StoreFileState>> {
    return this.storeFiles.decide(command, actor, wait);
  }

  /** The store file after a decision: the read model's row once it caught up, else the decided state. */
  private answer(organizationId: string, storeId: string, fileId: string, decided: Decided<StoreFileState>, before: StoreFileRow | null): Promise<StoreFileRow> {
    return this.storeFiles.read(decided, () => this.reader.get(organizationId, storeId, fileId), (s) => storeFileRowFromState(s, before) ?? before!);
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
  private async removeSuperseded(organizationId: string, storeId: string, fileId: string, actor: string): Promise<Position | null> {
    const r = await this.decide({ type: 'RemoveStoreFile', storeId, organizationId, fileId, reason: 'overwritten' }, actor, false).catch((err) => {
      if (!(err instanceof NotFoundError)) throw err;
      return null;
    });
    return r?.position ?? null;
  }

  /** The store named by `identifier`, or the row itself when the caller already holds it (a store it just created). */
  async resolveStore(organizationId: string, identifier: string | StoreRow): Promise<StoreRow> {
    if (typeof identifier !== 'string') return identifier;
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

  /** Attaches a file (an upsert: the same content and options only update metadata), once the read models show it. */
  async add(organizationId: string, actor: string, storeIdentifier: string | StoreRow, input: AddStoreFileInput): Promise<StoreFileRow> {
    return (await this.attach(organizationId, actor, storeIdentifier, input, true)).row;
  }

  /**
   * Attaches a file; with `wait: false` it answers from the decided state at once, with the position of
   * its last append (null: nothing appended), for a caller that waits once for many (a file batch).
   */
  async attach(organizationId: string, actor: string, storeIdentifier: string | StoreRow, input: AddStoreFileInput, wait: boolean): Promise<{ row: StoreFileRow; position: Position | null }> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    // the file's own stream, not the files read model: a file uploaded a moment ago may not be listed yet
    const file = await this.uploader.find(organizationId, input.file_id);
    if (!file) throw new NotFoundError(`File ${input.file_id} not found`);
    const strategy: ParsingStrategy = input.experimental?.parsing_strategy ?? input.config?.parsing_strategy ?? 'fast';
    const maxChunkSize = input.experimental?.max_chunk_size ?? input.config?.max_chunk_size ?? null;
    const externalId = input.external_id ?? null;
    // the file's own size (OpenAI's static strategy, or Mixedbread's max_chunk_size with the strategy's share of overlap), else the store's
    const chunking = input.chunking ?? (maxChunkSize ? chunkingFor(strategy, maxChunkSize) : null) ?? s.config.chunking ?? null;
    // the store file's own stream, not the read model (which may lag), says whether it is there
    const fileHistory = await this.writes.store.readStream(storeFileStream(s.id, file.id));
    const existing = foldEvents(storeFileDecider, fileHistory);
    if (existing.present && existing.added) {
      // Upsert: the same content and options only update metadata; anything else re-ingests.
      const a = existing.added;
      // a cancelled ingestion is never "the same": attaching the file again ingests it
      const same =
        a.fileVersion === file.version &&
        a.sha256 === file.sha256 &&
        a.parsingStrategy === strategy &&
        sameChunking(a.chunking, chunking) &&
        a.externalId === externalId &&
        existing.status !== 'cancelled';
      if (same) {
        const before = await this.reader.get(organizationId, s.id, file.id);
        if (input.metadata === undefined) return { row: before ?? storeFileRowFromState(existing, null)!, position: null };
        const r = await this.decide({ type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: file.id, metadata: input.metadata }, actor, wait);
        const again = await this.reembedForMetadata(
          organizationId,
          actor,
          { storeId: s.id, fileId: file.id, filename: a.filename, externalId, contextualization: a.contextualization },
          existing.metadata,
          input.metadata,
        );
        const last = again ?? r;
        return { row: await this.answer(organizationId, s.id, file.id, last, before), position: last.position };
      }
    }
    // Decide before changing anything: a refused claim (409) leaves the store as it was.
    const fileRevision = fileHistory.length ? fileHistory[fileHistory.length - 1].revision : -1;
    const claim = externalId ? await this.externalIds.claim(organizationId, actor, s.id, s.name, externalId, file.id, fileRevision, input.overwrite !== false) : null;
    const add: WithoutClock<StoreFileCommand> = {
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
      chunking,
      contextualization: s.config.contextualization as boolean,
      ...(s.bucketId ? { bucketId: s.bucketId } : {}),
      // a re-attach with other content or options replaces the file in the same append
      ...(existing.present ? { replace: true } : {}),
    };
    let added: Decided<StoreFileState>;
    try {
      added = await this.decide(add, actor, false);
    } catch (err) {
      // nothing was added: the id goes back to the file that held it, so it is not kept from others
      if (externalId && claim?.appended) {
        await this.externalIds
          .release(organizationId, actor, s.id, externalId, file.id)
          .catch((e: Error) => this.logger.warn(`store ${s.id}: releasing external_id of ${file.id} failed: ${e.message}`));
      }
      throw err;
    }
    // Stored: from here on nothing turns this into an error, but for a claim given up as abandoned (below).
    const dropped = externalId && claim ? await this.dropSuperseded(organizationId, s.id, externalId, file.id, claim.superseded, actor) : null;
    const position = dropped?.position && added.position ? maxPosition(added.position, dropped.position) : added.position;
    if (dropped?.lostTo === 'abandoned') {
      // this attach stalled past CLAIM_PENDING_MS between its claim and its add, and another file took the
      // id (without overwrite): the file removed itself again, and the attach is not acknowledged
      throw new ConflictError(`A file with external_id '${externalId}' already exists in store ${s.name}`);
    }
    if (wait) added.settled = await this.storeFiles.settle(position).catch(() => false);
    return { row: await this.answer(organizationId, s.id, file.id, added, null), position };
  }

  /**
   * After the claimant's add: the files it took the external id over from are removed. A concurrent
   * upsert with `overwrite` may have claimed the id between this file's claim and its add, and found
   * nothing to remove yet: the file that no longer holds the claim removes itself, so exactly one
   * store file keeps the external id.
   */
  private async dropSuperseded(
    organizationId: string,
    storeId: string,
    externalId: string,
    fileId: string,
    superseded: string[],
    actor: string,
  ): Promise<{ position: Position | null; lostTo: 'overwrite' | 'abandoned' | null }> {
    let position: Position | null = null;
    let lostTo: 'overwrite' | 'abandoned' | null = null;
    try {
      for (const id of superseded) position = (await this.removeSuperseded(organizationId, storeId, id, actor)) ?? position;
      const lost = await this.externalIds.lostBy(storeId, externalId, fileId);
      if (lost) position = (await this.removeSuperseded(organizationId, storeId, fileId, actor)) ?? position;
      lostTo = lost; // only once removed: a file still in the store is answered as added
    } catch (err) {
      this.logger.warn(`store ${storeId}: removing files superseded on external_id by ${fileId} failed: ${(err as Error).message}`);
    }
    return { position, lostTo };
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
    if (last) await this.storeFiles.settle(last);
    return n;
  }

  async updateMetadata(organizationId: string, actor: string, storeIdentifier: string, fileIdentifier: string, metadata: unknown): Promise<StoreFileRow> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    const r = await this.decide({ type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: f.fileId, metadata: metadata ?? null }, actor);
    const again = await this.reembedForMetadata(organizationId, actor, f, f.metadata, metadata ?? null);
    return this.answer(organizationId, s.id, f.fileId, again ?? r, f);
  }

  /**
   * A store whose contextualization embeds file metadata (`with_metadata`, or `true`) embeds a file
   * again when its metadata changes: the file gets a new generation and goes through ingestion (its
   * chunks artifact is reused; only the vectors are computed anew), billed like any ingestion.
   */
  private async reembedForMetadata(
    organizationId: string,
    actor: string,
    f: { storeId: string; fileId: string; filename: string; externalId: string | null; contextualization: unknown },
    before: unknown,
    after: unknown,
  ): Promise<Decided<StoreFileState> | null> {
    if (!embedsMetadata(f.contextualization) || JSON.stringify(before ?? null) === JSON.stringify(after ?? null)) return null;
    return this.decide(
      { type: 'ReingestStoreFile', storeId: f.storeId, organizationId, fileId: f.fileId, filename: f.filename, externalId: f.externalId, metadata: after ?? null, billable: true },
      actor,
    );
  }

  async remove(organizationId: string, actor: string, storeIdentifier: string, fileIdentifier: string): Promise<{ id: string; deleted: true; object: 'store.file' }> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    await this.decide({ type: 'RemoveStoreFile', storeId: s.id, organizationId, fileId: f.fileId, reason: 'deleted' }, actor);
    return { id: f.fileId, deleted: true, object: 'store.file' };
  }

  /**
   * Cancels a store file's ingestion if it is still waiting or running (a file batch's cancel): it
   * stays in the store as `cancelled`. Answers the position of the cancel, or null when there was
   * nothing to cancel (finished, or gone).
   */
  async cancel(organizationId: string, actor: string, storeId: string, fileId: string): Promise<Position | null> {
    try {
      const r = await this.decide({ type: 'CancelStoreFileIngestion', storeId, organizationId, fileId }, actor, false);
      return r.events.length ? r.position : null;
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
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

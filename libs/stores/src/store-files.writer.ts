import { Injectable } from '@nestjs/common';
import { ConflictError, FileReferences, NotFoundError, Position, RecordedEvent } from '@larder/kernel';
import { commandHandler, CommandWriter, Decided, HandleOptions, WithoutClock, Writes } from '@larder/event-store';
import { StoreRecord, StoresReader } from '@larder/projections/stores/stores.reader';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFileCommand, storeFileDecider, StoreFileState } from './store-file.aggregate';
import { storeFileStream } from './streams';
import { ChunkingData, ParsingStrategy } from './events';

export const STORE_FILE_PROJECTIONS = ['stores', 'chunk-index'] as const;

export const handleStoreFile = commandHandler(storeFileDecider, (c: StoreFileCommand) =>
  storeFileStream(c.storeId, c.fileId),
);

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

/**
 * Store files: one decision at a time (`decide`), answered from the read model once it caught up, else
 * from the decided state. The slices under commands/ hold each use case's policy; the ingestion worker
 * records its progress through `decide`.
 */
@Injectable()
export class StoreFilesWriter implements FileReferences {
  private readonly storeFiles: CommandWriter<StoreFileState, StoreFileCommand>;

  constructor(
    private readonly writes: Writes,
    private readonly stores: StoresReader,
    private readonly reader: StoreFilesReader,
  ) {
    this.storeFiles = writes.writer(handleStoreFile, STORE_FILE_PROJECTIONS);
  }

  /** Appends one store-file decision; with `wait`, then waits for the read models (late: the response says so, the write stands). */
  decide(
    command: WithoutClock<StoreFileCommand>,
    actor: string,
    wait = true,
    options: Pick<HandleOptions<StoreFileState>, 'history' | 'held'> = {},
  ): Promise<Decided<StoreFileState>> {
    return this.storeFiles.decide(command, actor, wait, options);
  }

  /** Waits for the read models to reach `position` (false: late, the response says so). */
  settle(position: Position | null): Promise<boolean> {
    return this.storeFiles.settle(position);
  }

  /** The store file after a decision: the read model's row once it caught up, else the decided state. */
  answer(
    organizationId: string,
    storeId: string,
    fileId: string,
    decided: Decided<StoreFileState>,
    before: StoreFileRow | null,
  ): Promise<StoreFileRow> {
    return this.storeFiles.read(
      decided,
      () => this.reader.get(organizationId, storeId, fileId),
      (s) => storeFileRowFromState(s, before) ?? before!,
    );
  }

  private stateOf(storeId: string, fileId: string): Promise<StoreFileState> {
    return this.writes.fold(storeFileDecider, storeFileStream(storeId, fileId));
  }

  /** The store file's own stream (never the read model, which may lag). */
  history(storeId: string, fileId: string): Promise<RecordedEvent[]> {
    return this.writes.store.readStream(storeFileStream(storeId, fileId));
  }

  /** The generation a store file is at, from its own stream; null once it is removed. */
  async currentGeneration(storeId: string, fileId: string): Promise<number | null> {
    const s = await this.stateOf(storeId, fileId);
    return s.present ? s.generation : null;
  }

  /** The store named by `identifier` (its record: no counts), or the row itself when the caller already holds it (a store it just created). */
  async resolveStore(organizationId: string, identifier: string | StoreRecord): Promise<StoreRecord> {
    if (typeof identifier !== 'string') return identifier;
    const s = await this.stores.record(organizationId, identifier);
    if (!s) throw new NotFoundError(`Store ${identifier} not found`);
    return s;
  }

  /** Refuses changes to the files of a store being copied. */
  assertWritable(s: StoreRecord): void {
    if (s.copyState?.status === 'in_progress')
      throw new ConflictError(`Store ${s.name} is being copied; its files cannot change until the copy has finished`);
  }

  /**
   * Before reading chunks beside a store file read from the `stores` read model: the chunk index has
   * applied at least what that read model has, so a `completed` file comes with its embedded chunks.
   */
  async chunkIndexCaughtUp(): Promise<void> {
    const at = (await this.writes.consistency.positionOf?.('stores')) ?? null;
    await this.writes.settle(['chunk-index'], at);
  }

  /** A store file from the read model; with `writable`, refused while its store is being copied. */
  async get(
    organizationId: string,
    storeIdentifier: string,
    fileIdentifier: string,
    { writable = false } = {},
  ): Promise<StoreFileRow> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    if (writable) this.assertWritable(s);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    return f;
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
      await this.decide(
        { type: 'RemoveStoreFile', storeId: f.storeId, organizationId, fileId, reason: 'file_deleted' },
        actor,
      ).catch((err) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
    }
  }
}

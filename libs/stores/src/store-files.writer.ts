import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  Clock,
  ConflictError,
  FileReferences,
  ID_GENERATOR,
  IdGenerator,
  NotFoundError,
  READ_MODEL_CONSISTENCY,
  ReadModelConsistency,
  ValidationFailedError,
} from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { FilesReader } from '@larder/projections/files/files.reader';
import { StoreFileCommand, storeFileDecider } from './store-file.aggregate';
import { storeFileStream } from './streams';
import { ParsingStrategy } from './events';

export const STORE_FILE_PROJECTIONS = ['stores', 'chunk-index'] as const;

type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> : never;

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
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
    private readonly stores: StoresReader,
    private readonly reader: StoreFilesReader,
    private readonly files: FilesReader,
  ) {}

  async decide(command: WithoutClock<StoreFileCommand>, actor: string, wait = true) {
    const result = await handleCommand(
      this.store,
      storeFileStream(command.storeId, command.fileId),
      storeFileDecider,
      { ...command, now: this.clock.now() } as StoreFileCommand,
      { orgId: command.organizationId, actor },
      { newIds: () => this.ids.uuid() },
    );
    if (wait) await this.consistency.waitFor(STORE_FILE_PROJECTIONS, result.position);
    return result;
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
    const at = (await this.consistency.positionOf?.('stores')) ?? null;
    await this.consistency.waitFor(['chunk-index'], at);
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
    const file = await this.files.get(organizationId, input.file_id);
    if (!file) throw new NotFoundError(`File ${input.file_id} not found`);
    const strategy: ParsingStrategy = input.experimental?.parsing_strategy ?? input.config?.parsing_strategy ?? 'fast';
    const externalId = input.external_id ?? null;
    const existing = await this.reader.get(organizationId, s.id, file.id);
    if (existing && existing.fileId === file.id) {
      // Upsert: the same content and options only update metadata; anything else re-ingests.
      const same = existing.fileVersion === file.version && existing.sha256 === file.sha256 && existing.parsingStrategy === strategy && existing.externalId === externalId;
      if (same) {
        if (input.metadata !== undefined) await this.decide({ type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: file.id, metadata: input.metadata }, actor);
        return (await this.reader.get(organizationId, s.id, file.id))!;
      }
      await this.decide({ type: 'RemoveStoreFile', storeId: s.id, organizationId, fileId: file.id, reason: 'overwritten' }, actor, false);
    }
    if (externalId) {
      const clashes = (await this.reader.byExternalId(s.id, externalId)).filter((f) => f.fileId !== file.id);
      if (clashes.length && input.overwrite === false) throw new ConflictError(`A file with external_id '${externalId}' already exists in store ${s.name}`);
      for (const c of clashes) await this.decide({ type: 'RemoveStoreFile', storeId: s.id, organizationId, fileId: c.fileId, reason: 'overwritten' }, actor, false);
    }
    await this.decide(
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
      },
      actor,
    );
    return (await this.reader.get(organizationId, s.id, file.id))!;
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
    if (last) await this.consistency.waitFor(STORE_FILE_PROJECTIONS, last);
    return n;
  }

  /** Adds a copy of a completed store file to another store, reusing its artifacts (no parsing, no embedding). */
  async addCopy(organizationId: string, actor: string, targetStoreId: string, f: StoreFileRow): Promise<void> {
    await this.decide(
      {
        type: 'AddStoreFile',
        storeId: targetStoreId,
        organizationId,
        fileId: f.fileId,
        filename: f.filename,
        mimeType: f.mimeType,
        bytes: f.bytes,
        sha256: f.sha256,
        blobKey: f.blobKey,
        fileVersion: f.fileVersion,
        metadata: f.metadata,
        externalId: f.externalId,
        parsingStrategy: f.parsingStrategy,
        contextualization: f.contextualization as boolean,
        copiedFrom: { storeId: f.storeId, chunksKey: f.chunksKey!, vectorsKey: f.vectorsKey, model: f.model, chunkCount: f.chunkCount, usageTokens: f.usageTokens },
      },
      actor,
    );
  }

  async updateMetadata(organizationId: string, actor: string, storeIdentifier: string, fileIdentifier: string, metadata: unknown): Promise<StoreFileRow> {
    const s = await this.resolveStore(organizationId, storeIdentifier);
    this.assertWritable(s);
    const f = await this.reader.get(organizationId, s.id, fileIdentifier);
    if (!f) throw new NotFoundError(`File ${fileIdentifier} not found in store ${storeIdentifier}`);
    await this.decide({ type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: f.fileId, metadata: metadata ?? null }, actor);
    return (await this.reader.get(organizationId, s.id, f.fileId))!;
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

  static validateIdentifier(id: string, loc: (string | number)[]): void {
    if (!id) throw new ValidationFailedError([{ loc, msg: 'must not be empty', type: 'value_error' }]);
  }
}

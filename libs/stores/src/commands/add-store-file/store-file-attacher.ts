import { Inject, Injectable, Logger as NestLogger } from '@nestjs/common';
import {
  ConflictError,
  FILE_UPLOADER,
  FileUploader,
  maxPosition,
  NotFoundError,
  Position,
  UploadedFileInfo,
} from '@larder/kernel';
import { Decided, foldEvents, WithoutClock } from '@larder/event-store';
import { StoreRecord } from '@larder/projections/stores/stores.reader';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { chunkingFor } from '@larder/ingestion/chunker';
import { StoreFileCommand, storeFileDecider, StoreFileState } from '../../store-file.aggregate';
import { ChunkingData, ParsingStrategy } from '../../events';
import { AddStoreFileInput, storeFileRowFromState, StoreFilesWriter } from '../../store-files.writer';
import { reembedForMetadata } from '../update-store-file/reembed-for-metadata';
import { StoreExternalIds } from './store-external-ids';

const sameChunking = (a: ChunkingData | null | undefined, b: ChunkingData | null) =>
  (a ?? null) === b || (!!a && !!b && a.maxTokens === b.maxTokens && a.overlapTokens === b.overlapTokens);

/**
 * The attach policy: an upsert (the same content and options only update metadata, anything else
 * re-ingests), and the store's `(external_id)` claims, decided before anything changes (a refused
 * claim, 409, leaves the store as it was; concurrent uploads without overwrite: exactly one is added).
 */
@Injectable()
export class StoreFileAttacher {
  private readonly logger = new NestLogger('StoreFiles');

  constructor(
    private readonly writer: StoreFilesWriter,
    private readonly reader: StoreFilesReader,
    private readonly externalIds: StoreExternalIds,
    @Inject(FILE_UPLOADER) private readonly uploader: FileUploader,
  ) {}

  /** Attaches a file (an upsert: the same content and options only update metadata), once the read models show it. */
  async add(
    organizationId: string,
    actor: string,
    storeIdentifier: string | StoreRecord,
    input: AddStoreFileInput,
  ): Promise<StoreFileRow> {
    return (await this.attach(organizationId, actor, storeIdentifier, input, true)).row;
  }

  /**
   * Attaches a file; with `wait: false` it answers from the decided state at once, with the position of
   * its last append (null: nothing appended), for a caller that waits once for many (a file batch).
   * `found` is the file as the caller has just found it (a file batch looks every file up first).
   */
  async attach(
    organizationId: string,
    actor: string,
    storeIdentifier: string | StoreRecord,
    input: AddStoreFileInput,
    wait: boolean,
    found?: UploadedFileInfo,
  ): Promise<{ row: StoreFileRow; position: Position | null }> {
    const s = await this.writer.resolveStore(organizationId, storeIdentifier);
    this.writer.assertWritable(s);
    // the file's own stream, not the files read model: a file uploaded a moment ago may not be listed yet
    const file = found ?? (await this.uploader.find(organizationId, input.file_id));
    if (!file) throw new NotFoundError(`File ${input.file_id} not found`);
    const strategy: ParsingStrategy = input.experimental?.parsing_strategy ?? input.config?.parsing_strategy ?? 'fast';
    const maxChunkSize = input.experimental?.max_chunk_size ?? input.config?.max_chunk_size ?? null;
    const externalId = input.external_id ?? null;
    // the file's own size (OpenAI's static strategy, or Mixedbread's max_chunk_size with the strategy's share of overlap), else the store's
    const chunking =
      input.chunking ?? (maxChunkSize ? chunkingFor(strategy, maxChunkSize) : null) ?? s.config.chunking ?? null;
    // the store file's own stream, not the read model (which may lag), says whether it is there
    const fileHistory = await this.writer.history(s.id, file.id);
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
        if (input.metadata === undefined)
          return { row: before ?? storeFileRowFromState(existing, null)!, position: null };
        const r = await this.writer.decide(
          { type: 'UpdateStoreFileMetadata', storeId: s.id, organizationId, fileId: file.id, metadata: input.metadata },
          actor,
          wait,
        );
        const again = await reembedForMetadata(
          this.writer,
          organizationId,
          actor,
          { storeId: s.id, fileId: file.id, filename: a.filename, externalId, contextualization: a.contextualization },
          existing.metadata,
          input.metadata,
        );
        const last = again ?? r;
        return { row: await this.writer.answer(organizationId, s.id, file.id, last, before), position: last.position };
      }
    }
    // Decide before changing anything: a refused claim (409) leaves the store as it was.
    const fileRevision = fileHistory.length ? fileHistory[fileHistory.length - 1].revision : -1;
    const claim = externalId
      ? await this.externalIds.claim(
          organizationId,
          actor,
          s.id,
          s.name,
          externalId,
          file.id,
          fileRevision,
          input.overwrite !== false,
        )
      : null;
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
      // decided on the history read above: a write in between fails the expected revision and is read again
      added = await this.writer.decide(add, actor, false, { history: fileHistory });
    } catch (err) {
      // nothing was added: the id goes back to the file that held it, so it is not kept from others
      if (externalId && claim?.appended) {
        await this.externalIds
          .release(organizationId, actor, s.id, externalId, file.id)
          .catch((e: Error) =>
            this.logger.warn(`store ${s.id}: releasing external_id of ${file.id} failed: ${e.message}`),
          );
      }
      throw err;
    }
    // Stored: from here on nothing turns this into an error, but for a claim given up as abandoned (below).
    const dropped =
      externalId && claim
        ? await this.dropSuperseded(organizationId, s.id, externalId, file.id, claim.superseded, actor)
        : null;
    const position =
      dropped?.position && added.position ? maxPosition(added.position, dropped.position) : added.position;
    if (dropped?.lostTo === 'abandoned') {
      // this attach stalled past CLAIM_PENDING_MS between its claim and its add, and another file took the
      // id (without overwrite): the file removed itself again, and the attach is not acknowledged
      throw new ConflictError(`A file with external_id '${externalId}' already exists in store ${s.name}`);
    }
    if (wait) added.settled = await this.writer.settle(position).catch(() => false);
    return { row: await this.writer.answer(organizationId, s.id, file.id, added, null), position };
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
      for (const id of superseded)
        position = (await this.removeSuperseded(organizationId, storeId, id, actor)) ?? position;
      const lost = await this.externalIds.lostBy(storeId, externalId, fileId);
      if (lost) position = (await this.removeSuperseded(organizationId, storeId, fileId, actor)) ?? position;
      lostTo = lost; // only once removed: a file still in the store is answered as added
    } catch (err) {
      this.logger.warn(
        `store ${storeId}: removing files superseded on external_id by ${fileId} failed: ${(err as Error).message}`,
      );
    }
    return { position, lostTo };
  }

  /** Removes a store file that another write superseded; already gone is fine. */
  private async removeSuperseded(
    organizationId: string,
    storeId: string,
    fileId: string,
    actor: string,
  ): Promise<Position | null> {
    const r = await this.writer
      .decide({ type: 'RemoveStoreFile', storeId, organizationId, fileId, reason: 'overwritten' }, actor, false)
      .catch((err) => {
        if (!(err instanceof NotFoundError)) throw err;
        return null;
      });
    return r?.position ?? null;
  }
}

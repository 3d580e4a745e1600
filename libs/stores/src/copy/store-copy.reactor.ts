import { Logger } from '@nestjs/common';
import { Clock, ConflictError, IdGenerator, NotFoundError, ReadModelConsistency, RecordedEvent } from '@larder/kernel';
import { EventStore, foldStream } from '@larder/event-store';
import type { StoreFileRow } from '@larder/projections/stores/store-files.reader';
import { StoreCopyStarted } from '../events';
import { handleStore } from '../stores.writer';
import { handleStoreFile } from '../store-files.writer';
import { StoreCommand, storeDecider, StoreState } from '../store.aggregate';
import { storeStream } from '../streams';
import { StoreFileCommand } from '../store-file.aggregate';

/** The source's store files, as the stores read model has them once it has applied `position`. */
export interface CopySourceFiles {
  completedFilesOf(storeId: string): Promise<StoreFileRow[]>;
}

/**
 * Process manager of a store copy, started by `StoreCopyStarted` on the target. It marks the source,
 * adds every completed source file to the target with its artifacts (no parsing, no embedding), then
 * finishes both sides. Each step is idempotent, and the reactor's checkpoint moves past the event only
 * when all of them are done, so a copy interrupted by a crash resumes where it stopped. A copy that
 * cannot finish is finished with its error, visibly (`copy_state.error`, target `failed`).
 */
export class StoreCopyReactor {
  readonly name = 'store-copy';
  readonly handles = ['StoreCopyStarted'] as const;
  private readonly logger = new Logger('StoreCopy');

  constructor(
    private readonly store: EventStore,
    private readonly consistency: Pick<ReadModelConsistency, 'waitFor'>,
    private readonly source: CopySourceFiles,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const e = event as unknown as RecordedEvent<'StoreCopyStarted', StoreCopyStarted['data']>;
    if (e.data.role !== 'target') return;
    const organizationId = e.metadata.orgId;
    const meta = { orgId: organizationId, actor: e.metadata.actor ?? 'system', causationId: e.id };
    const targetId = e.data.storeId;
    const sourceId = e.data.peerStoreId;
    const decideStore = (c: StoreCommand) => handleStore(this.store, c, meta, { newIds: () => this.ids.uuid() });
    const copyStep = (
      type: 'StartCopy' | 'FinishCopy',
      storeId: string,
      role: 'source' | 'target',
      peerStoreId: string,
      error: string | null = null,
    ): StoreCommand =>
      type === 'StartCopy'
        ? { type, storeId, organizationId, role, peerStoreId, now: this.clock.now() }
        : { type, storeId, organizationId, role, peerStoreId, error, now: this.clock.now() };
    // The source is released first: once the target reads as finished, so does its source.
    const finish = async (error: string | null) => {
      await decideStore(copyStep('FinishCopy', sourceId, 'source', targetId)).catch((err) => this.ignoreGone(err));
      await decideStore(copyStep('FinishCopy', targetId, 'target', sourceId, error)).catch((err) =>
        this.ignoreGone(err),
      );
      if (error) this.logger.warn(`copy of store ${sourceId} into ${targetId} failed: ${error}`);
      else this.logger.log(`copy of store ${sourceId} into ${targetId} finished`);
    };

    const target = await this.stateOf(targetId);
    if (!target.copying) {
      // finished before a restart re-delivered the event; a source still marked is released
      if (await this.sourceCopyingInto(sourceId, targetId)) {
        await decideStore(copyStep('FinishCopy', sourceId, 'source', targetId)).catch((err) => this.ignoreGone(err));
      }
      return;
    }
    try {
      await decideStore(copyStep('StartCopy', sourceId, 'source', targetId));
    } catch (err) {
      if (!(err instanceof ConflictError) || !(await this.sourceCopyingInto(sourceId, targetId))) {
        if (err instanceof ConflictError || err instanceof NotFoundError) return finish((err as Error).message);
        throw err; // transient: the runner retries the event
      }
    }
    // the read model lists the source's files as of the copy's start (at least)
    await this.consistency.waitFor(['stores'], e.position);
    let copied = 0;
    for (const f of await this.source.completedFilesOf(sourceId)) {
      if (!f.chunksKey) continue;
      const add: StoreFileCommand = {
        type: 'AddStoreFile',
        storeId: targetId,
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
        chunking: f.chunking,
        contextualization: f.contextualization as boolean,
        copiedFrom: {
          storeId: f.storeId,
          chunksKey: f.chunksKey,
          vectorsKey: f.vectorsKey,
          model: f.model,
          chunkCount: f.chunkCount,
          usageTokens: f.usageTokens,
        },
        now: this.clock.now(),
      };
      try {
        await handleStoreFile(this.store, add, meta, { newIds: () => this.ids.uuid() });
        copied++;
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err; // already copied before a crash
      }
    }
    this.logger.debug?.(`copy ${sourceId} → ${targetId}: ${copied} files added`);
    await finish(null);
  }

  private stateOf(storeId: string): Promise<StoreState> {
    return foldStream(this.store, storeStream(storeId), storeDecider);
  }

  private async sourceCopyingInto(sourceId: string, targetId: string): Promise<boolean> {
    const s = await this.stateOf(sourceId);
    return s.copying?.role === 'source' && s.copying.peerStoreId === targetId;
  }

  private ignoreGone(err: unknown): void {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

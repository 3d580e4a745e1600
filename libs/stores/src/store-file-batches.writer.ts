import { Inject, Injectable } from '@nestjs/common';
import {
  ConflictError,
  FILE_UPLOADER,
  FileUploader,
  maxPosition,
  NotFoundError,
  Position,
  Problems,
} from '@larder/kernel';
import { commandHandler, CommandResult, CommandWriter, Writes } from '@larder/event-store';
import { StoreFileBatchesReader, StoreFileBatchRow } from '@larder/projections/stores/store-file-batches.reader';
import { StoreFileBatchCommand, storeFileBatchDecider, StoreFileBatchState } from './store-file-batch.aggregate';
import { storeFileBatchStream } from './streams';
import { AddStoreFileInput, STORE_FILE_PROJECTIONS, StoreFilesWriter } from './store-files.writer';
import { StoreFileAttacher } from './commands/add-store-file/store-file-attacher';

const handleBatch = commandHandler(storeFileBatchDecider, (c: StoreFileBatchCommand) =>
  storeFileBatchStream(c.batchId),
);

/**
 * Files of a batch looked up and attached at once: each file's reads and append overlap the others'
 * round trips to the event store, instead of waiting for them.
 */
const ATTACH_LANES = 8;

/** `work` on every item, at most `lanes` at a time; rejects with the first failure once the running ones have settled. */
async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (!failures.length && next < items.length) {
      const i = next++;
      try {
        out[i] = await work(items[i]);
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failures.length) throw failures[0];
  return out;
}

/** One file of a batch: the file, and what it is attached with. */
export type BatchFileInput = Pick<AddStoreFileInput, 'file_id' | 'metadata' | 'chunking'>;

/**
 * File batches: `StoreFileBatchCreated` names the files, then each is attached as a store file (the
 * same path as a single attach); cancelling records `StoreFileBatchCancelled` and cancels the
 * ingestion of those still waiting or running. What a batch reports is read from its store files.
 */
@Injectable()
export class StoreFileBatchesWriter {
  private readonly batches: CommandWriter<StoreFileBatchState, StoreFileBatchCommand>;

  constructor(
    private readonly writes: Writes,
    private readonly storeFiles: StoreFilesWriter,
    private readonly attacher: StoreFileAttacher,
    private readonly reader: StoreFileBatchesReader,
    @Inject(FILE_UPLOADER) private readonly uploader: FileUploader,
  ) {
    // the batch's own read model follows its store files': one wait on those covers both
    this.batches = writes.writer(handleBatch, STORE_FILE_PROJECTIONS);
  }

  async get(organizationId: string, storeIdentifier: string, batchId: string): Promise<StoreFileBatchRow> {
    const s = await this.storeFiles.resolveStore(organizationId, storeIdentifier);
    const b = await this.reader.get(organizationId, s.id, batchId);
    if (!b) throw new NotFoundError(`File batch ${batchId} not found in vector store ${storeIdentifier}`);
    return b;
  }

  /** Every file must exist (422 at its `loc` otherwise) before anything is stored; `loc(i)` places file i in the request. */
  async create(
    organizationId: string,
    actor: string,
    storeIdentifier: string,
    files: BatchFileInput[],
    loc: (i: number) => (string | number)[],
  ): Promise<StoreFileBatchRow> {
    const s = await this.storeFiles.resolveStore(organizationId, storeIdentifier);
    // refused before anything is stored, as each attach would be
    if (s.copyState?.status === 'in_progress')
      throw new ConflictError(`Store ${s.name} is being copied; its files cannot change until the copy has finished`);
    const p = new Problems();
    const seen = new Set<string>();
    const found = await inLanes(files, ATTACH_LANES, (f) => this.uploader.find(organizationId, f.file_id));
    for (const [i, f] of files.entries()) {
      if (seen.has(f.file_id)) p.add(loc(i), `File ${f.file_id} is named twice`, 'value_error', f.file_id);
      else if (!found[i]) p.add(loc(i), `File ${f.file_id} not found`, 'value_error', f.file_id);
      seen.add(f.file_id);
    }
    p.throwIfAny();
    const batchId = this.writes.ids.uuid();
    const created = await this.batches.run(
      { type: 'CreateStoreFileBatch', batchId, storeId: s.id, organizationId, fileIds: files.map((f) => f.file_id) },
      actor,
    );
    let last: Position | null = created.position;
    await inLanes([...files.entries()], ATTACH_LANES, async ([i, f]) => {
      const { position } = await this.attacher.attach(organizationId, actor, s, f, false, found[i]!);
      if (position) last = last ? maxPosition(last, position) : position;
    });
    // one wait for every file of the batch: the latest of its appends covers them all
    return this.answer(organizationId, s.id, batchId, { ...created, position: last });
  }

  async cancel(
    organizationId: string,
    actor: string,
    storeIdentifier: string,
    batchId: string,
  ): Promise<StoreFileBatchRow> {
    const b = await this.get(organizationId, storeIdentifier, batchId);
    const cancelled = await this.batches.run(
      { type: 'CancelStoreFileBatch', batchId, storeId: b.storeId, organizationId },
      actor,
    );
    let last = cancelled.position;
    for (const fileId of b.fileIds)
      last = (await this.storeFiles.cancel(organizationId, actor, b.storeId, fileId)) ?? last;
    return this.answer(organizationId, b.storeId, batchId, { ...cancelled, position: last }, b);
  }

  /** Waits for the last of the batch's appends, then answers the batch from the read model, or (late) from its decided state: the write stands either way. */
  private answer(
    organizationId: string,
    storeId: string,
    batchId: string,
    last: CommandResult<StoreFileBatchState>,
    before: StoreFileBatchRow | null = null,
  ): Promise<StoreFileBatchRow> {
    return this.batches.answer(
      last,
      () => this.reader.get(organizationId, storeId, batchId),
      (state) => {
        const n = state.fileIds.length;
        return {
          id: batchId,
          storeId,
          organizationId,
          fileIds: state.fileIds,
          cancelledAt: state.status === 'cancelled' ? this.writes.now() : null,
          createdAt: new Date(state.createdAt!),
          fileCounts: before?.fileCounts ?? { in_progress: n, completed: 0, failed: 0, cancelled: 0, total: n },
        };
      },
    );
  }
}

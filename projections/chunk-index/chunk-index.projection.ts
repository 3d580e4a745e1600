import { Position, RecordedEvent, START, domainEvent } from '@larder/kernel';
import { Logger } from '@nestjs/common';
import { BlobNotFoundError, BlobStorage, BucketAccessError, parseBucketBlobKey } from '@larder/blob-storage';
import {
  ChunkIndex,
  ChunkIndexOp,
  chunkTypeOf,
  IndexedFile,
  readChunksArtifact,
  readVectorsArtifact,
} from '@larder/chunk-index';
import { STORE_FILE_EVENT_TYPES, StoreEvent, StoreFileEvent } from '@larder/stores/events';
import { ExternalProjection } from '../runner/projection';

/**
 * `chunk-index`: copies ingestion artifacts (chunks, then vectors) from blob storage into the chunk
 * index. It never parses or embeds, so `replay chunk-index` rebuilds the index from the log and the
 * artifacts alone.
 */
export class ChunkIndexProjection implements ExternalProjection {
  readonly name = 'chunk-index';
  readonly version = 1;
  readonly handles = [...STORE_FILE_EVENT_TYPES, 'StoreDeleted'] as const;
  private readonly logger = new Logger('ChunkIndex');

  constructor(
    private readonly index: ChunkIndex,
    private readonly blobs: BlobStorage,
  ) {}

  async setup(): Promise<void> {
    await this.index.setup();
    const cp = await this.index.readCheckpoint(this.name);
    if (cp && cp.version !== this.version) await this.reset();
  }

  async readCheckpoint(): Promise<Position> {
    return (await this.index.readCheckpoint(this.name))?.position ?? START;
  }

  async reset(): Promise<void> {
    await this.index.reset(this.name, this.version);
  }

  async applyBatch(events: RecordedEvent[], last: Position): Promise<void> {
    const ops: ChunkIndexOp[] = [];
    const push = (op: ChunkIndexOp | null) => op && ops.push(op);
    for (const event of events) {
      const e = domainEvent<StoreFileEvent | StoreEvent>(event);
      switch (e.type) {
        case 'StoreFileAdded': {
          const d = e.data;
          ops.push(putFileOp(d));
          if (d.copiedFrom) {
            push(await this.chunksOp(d.storeId, d.fileId, d.generation, d.copiedFrom.chunksKey));
            if (d.copiedFrom.vectorsKey)
              push(await this.vectorsOp(d.storeId, d.fileId, d.generation, d.copiedFrom.vectorsKey));
          }
          break;
        }
        case 'StoreFileMetadataUpdated':
          ops.push({ op: 'setMetadata', storeId: e.data.storeId, fileId: e.data.fileId, metadata: e.data.metadata });
          break;
        case 'StoreFileParsed':
          push(await this.chunksOp(e.data.storeId, e.data.fileId, e.data.generation, e.data.chunksKey));
          break;
        case 'StoreFileIngested':
          if (e.data.vectorsKey)
            push(await this.vectorsOp(e.data.storeId, e.data.fileId, e.data.generation, e.data.vectorsKey));
          break;
        case 'StoreFileReingestionRequested': {
          const d = e.data;
          ops.push(putFileOp(d));
          break;
        }
        case 'StoreFileIngestionCancelled':
          // the file stays (cancelled), its chunks go: nothing of an unfinished ingestion is searchable
          ops.push({
            op: 'setChunks',
            storeId: e.data.storeId,
            fileId: e.data.fileId,
            generation: e.data.generation,
            chunks: [],
          });
          break;
        case 'StoreFileRemoved':
          ops.push({ op: 'deleteFile', storeId: e.data.storeId, fileId: e.data.fileId });
          break;
        case 'StoreDeleted':
          ops.push({ op: 'deleteStore', storeId: e.data.storeId });
          break;
        default:
          break;
      }
    }
    await this.index.write(ops, { projection: this.name, version: this.version, position: last });
  }

  /**
   * Reads an artifact. One in a customer's bucket may be gone (the store file was removed since, and
   * its objects with it: a later event removes it from the index anyway) or unreadable (the bucket's
   * credentials were revoked): that file's op is skipped with a warning rather than holding up the
   * index for every tenant; a network failure is retried a few times first. Platform artifacts are
   * always there, so any failure reading one is retried by the runner.
   */
  private async artifact<T>(key: string, what: string, read: () => Promise<T>): Promise<T | null> {
    if (!parseBucketBlobKey(key)) return read();
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        if (err instanceof BucketAccessError && err.transient && attempt < 3) {
          await new Promise((r) => setTimeout(r, attempt * 1000));
          continue;
        }
        if (!(err instanceof BlobNotFoundError) && !(err instanceof BucketAccessError)) throw err;
        this.logger.warn(
          `${what} skipped: ${err instanceof BlobNotFoundError ? `its artifact ${key} is no longer in the bucket` : err.message}`,
        );
        return null;
      }
    }
  }

  private async chunksOp(
    storeId: string,
    fileId: string,
    generation: number,
    key: string,
  ): Promise<ChunkIndexOp | null> {
    const artifact = await this.artifact(key, `chunks of ${fileId} in store ${storeId}`, () =>
      readChunksArtifact(this.blobs, key),
    );
    if (!artifact) return null;
    return {
      op: 'setChunks',
      storeId,
      fileId,
      generation,
      chunks: artifact.chunks.map((c) => ({
        chunkIndex: c.chunkIndex,
        type: chunkTypeOf(c.mimeType),
        text: c.text,
        offset: c.offset,
        mimeType: c.mimeType,
        generatedMetadata: c.generatedMetadata,
      })),
    };
  }

  private async vectorsOp(
    storeId: string,
    fileId: string,
    generation: number,
    key: string,
  ): Promise<ChunkIndexOp | null> {
    const artifact = await this.artifact(key, `vectors of ${fileId} in store ${storeId}`, () =>
      readVectorsArtifact(this.blobs, key),
    );
    if (!artifact) return null;
    return { op: 'setVectors', storeId, fileId, generation, model: artifact.model, vectors: artifact.vectors };
  }
}

/** The index's row of a store file as an added or re-ingested file's event carries it. */
function putFileOp(d: IndexedFile): ChunkIndexOp {
  const { storeId, fileId, organizationId, filename, externalId, metadata, generation } = d;
  return { op: 'putFile', file: { storeId, fileId, organizationId, filename, externalId, metadata, generation } };
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { CLOCK, Clock, ConflictError, NotFoundError } from '@larder/kernel';
import { HeldState } from '@larder/event-store';
import { BLOB_STORAGE, BlobStorage, BUCKET_HEALTH, BucketAccessError, BucketHealth } from '@larder/blob-storage';
import { EMBEDDER, EmbedBatcher, Embedder, OCR, Ocr, TRANSCRIBER, Transcriber } from '@larder/ai';
import { chunkDocument, contextualizationPlan, embeddingInput, metadataLines, parseFile } from '@larder/ingestion';
import { readChunksArtifact, writeChunksArtifact, writeVectorsArtifact, ChunksArtifact } from '@larder/chunk-index';
import { StoreFileRow, StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { StoreFilesWriter } from '../store-files.writer';
import { StoreFileState } from '../store-file.aggregate';
import { STORES_CONFIG, StoresConfig } from '../stores.config';
import { placementOf } from './ingestion.placement';
import { contentGone, describeFailure, parseFailure } from './ingestion.failure';

/** A file this worker claimed: when, which attempt, and the store file's state its claim left (the next decision starts from it). */
interface Claim {
  startedAt: Date;
  attempt: number;
  held: HeldState<StoreFileState>;
}

/**
 * The ingestion reactor: takes store files that wait for ingestion (pending and due, or whose
 * worker's lease expired), claims each with a lease (an event appended at the expected revision, so
 * exactly one worker wins), then parse → chunk → (artifact) → embed → (artifact), recording
 * progress as events. Only the lease holder's results are accepted, so a crashed or slow worker
 * never produces duplicates. Retryable failures back off exponentially up to `maxAttempts`.
 */
@Injectable()
export class IngestionWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Ingestion');
  readonly workerId = `worker-${randomUUID()}`;
  private readonly active = new Map<string, Promise<void>>();
  /**
   * Files found due and not claimed yet, in the order found. A row that went stale meanwhile (removed,
   * re-added, claimed by another worker) is refused at its claim, which decides on the file's stream.
   */
  private readonly ahead: StoreFileRow[] = [];
  /** When the oldest of `ahead` was looked up. */
  private aheadAt = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  /** Set by a wake-up that came while the loop was not waiting (it was looking for work): it looks again at once. */
  private woken = false;
  private loopPromise: Promise<void> | null = null;
  /** Files and chunks this process ingested since it started. */
  readonly ingested = { files: 0, chunks: 0 };
  /**
   * The chunks of every file in flight go to the model through one batcher: full batches, as many at
   * once as the embedder has workers, while other files are parsed and recorded.
   */
  readonly embedding: EmbedBatcher;

  constructor(
    @Inject(STORES_CONFIG) private readonly config: StoresConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    private readonly reader: StoreFilesReader,
    private readonly writer: StoreFilesWriter,
    // null with LARDER_OCR=false: images then fail as unsupported
    @Optional() @Inject(OCR) private readonly ocr: Ocr | null = null,
    @Optional() @Inject(BUCKET_HEALTH) private readonly health: BucketHealth | null = null,
    // null without a speech recogniser: audio and video then fail as unsupported, naming what to install
    @Optional() @Inject(TRANSCRIBER) private readonly transcriber: Transcriber | null = null,
  ) {
    this.embedding = new EmbedBatcher(embedder, embedder.parallelism ?? 2);
  }

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    this.loopPromise = this.loop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loopPromise;
    await Promise.allSettled(this.active.values());
  }

  /** Files this process is ingesting now. */
  get running(): number {
    return this.active.size;
  }

  /** Wakes the loop at once (after a file was added in this process). */
  nudge(): void {
    this.woken = true;
    this.wake?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      try {
        const free = this.config.ingestionConcurrency - this.active.size;
        if (free > 0) {
          // files due are looked up a concurrency's worth ahead: one query per that many files, not one per file;
          // rows older than a poll are looked up again (a file another worker failed may have a retry time now)
          if (this.ahead.length && Date.now() - this.aheadAt > this.config.pollMs) this.ahead.length = 0;
          if (this.ahead.length < free) {
            const known = [...this.active.keys(), ...this.ahead.map(keyOf)];
            const limit = free - this.ahead.length + this.config.ingestionConcurrency;
            const due = await this.reader.dueForIngestion(this.clock.now(), limit, known);
            if (!this.ahead.length) this.aheadAt = Date.now();
            this.ahead.push(...due);
          }
          for (const row of this.ahead.splice(0, free)) this.claimAndRun(row);
        }
      } catch (err) {
        if (!this.stopped) this.logger.warn(`polling for work failed: ${(err as Error).message}`);
      }
      // a file that finished (or was added) while the loop was looking does not wait for the next poll
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.config.pollMs);
      });
      this.wake = null;
      if (this.timer) clearTimeout(this.timer);
    }
  }

  private claimAndRun(row: StoreFileRow): void {
    const key = keyOf(row);
    const run = this.claim(row)
      .then((claimed) => (claimed ? this.withRenewedLease(row, () => this.ingest(row, claimed)) : undefined))
      .catch((err) =>
        this.logger.error(
          `ingestion of ${row.filename} (${row.fileId}) in store ${row.storeId} failed: ${(err as Error).message}`,
          (err as Error).stack,
        ),
      )
      .finally(() => {
        this.active.delete(key);
        this.nudge();
      });
    this.active.set(key, run);
  }

  private async claim(row: StoreFileRow): Promise<Claim | null> {
    try {
      const startedAt = this.clock.now();
      const r = await this.writer.decide(
        {
          type: 'StartIngestion',
          storeId: row.storeId,
          organizationId: row.organizationId,
          fileId: row.fileId,
          generation: row.generation,
          workerId: this.workerId,
          leaseMs: this.config.leaseMs,
        },
        'system',
        false,
      );
      return { startedAt, attempt: r.state.attempt, held: { state: r.state, revision: r.revision ?? -1 } };
    } catch (err) {
      if (err instanceof ConflictError || err instanceof NotFoundError) return null; // another worker won, or the file went away
      throw err;
    }
  }

  private async ingest(row: StoreFileRow, claim: Claim): Promise<void> {
    const base = {
      storeId: row.storeId,
      organizationId: row.organizationId,
      fileId: row.fileId,
      generation: row.generation,
      workerId: this.workerId,
    };
    const t0 = Date.now();
    const place = placementOf(row, this.embedder.model);
    /** Objects this attempt created in the bucket: removed again if the store file turns out to be gone. */
    const written: string[] = [];
    try {
      const deadline = AbortSignal.timeout(this.config.attemptTimeoutMs);
      // 0. a store in a bucket keeps its own copy of the content there
      if (place.bucketId && (await this.blobs.size(place.contentKey)) === null) {
        const source = await this.blobs.get(row.blobKey).catch(async (err: unknown) => {
          if ((await this.blobs.size(row.blobKey)) === null) throw contentGone();
          throw err;
        });
        await this.blobs.put(place.contentKey, source, { contentType: row.mimeType });
        written.push(place.contentKey);
      }
      // 1. parse and chunk (once per content, strategy, chunk size and parser version)
      const chunksKey = place.chunksKey;
      let artifact: ChunksArtifact;
      if ((await this.blobs.size(chunksKey)) !== null) {
        artifact = await readChunksArtifact(this.blobs, chunksKey);
      } else {
        const content = await this.readContent(place.contentKey);
        const doc = await parseFile(content, row.filename, row.mimeType, {
          ocr: this.ocr,
          maxImagePixels: this.config.ocrMaxPixels,
          limits: this.config.parseLimits,
          transcriber: this.transcriber,
          media: this.config.media,
          signal: deadline,
        }).catch((err: Error) => {
          throw parseFailure(err, row.filename);
        });
        const chunks = chunkDocument(doc, row.parsingStrategy, row.filename, row.chunking);
        artifact = {
          format: 2,
          chunks: chunks.map((c) => ({
            chunkIndex: c.chunkIndex,
            text: c.text,
            context: c.context,
            offset: c.offset,
            tokens: c.tokens,
            mimeType: c.mimeType,
            generatedMetadata: c.generatedMetadata,
          })),
        };
        await writeChunksArtifact(this.blobs, chunksKey, artifact);
        if (place.bucketId) written.push(chunksKey);
      }
      const usageTokens = artifact.chunks.reduce((n, c) => n + c.tokens, 0);
      deadline.throwIfAborted();
      const parsed = await this.writer.decide(
        {
          type: 'RecordParsed',
          ...base,
          chunksKey,
          chunkCount: artifact.chunks.length,
          usageTokens,
          parseMs: Date.now() - t0,
        },
        'system',
        false,
        { held: claim.held },
      );

      // 2. embed (once per model and chunk inputs, across files, stores and copies); the store's
      // contextualization decides what is put before each chunk's text
      const plan = contextualizationPlan(row.contextualization);
      const metadata = metadataLines(row.metadata, plan.metadata);
      let vectorsKey: string | null = null;
      if (artifact.chunks.length) {
        const inputs = artifact.chunks.map((c) =>
          c.context
            ? embeddingInput(
                { text: c.text, context: c.context },
                {
                  filename: row.filename,
                  mode: row.parsingStrategy,
                  fileContext: plan.fileContext,
                  metadataLines: metadata,
                },
              )
            : (c.embedText ?? c.text),
        );
        vectorsKey = place.vectorsKey(inputs);
        if ((await this.blobs.size(vectorsKey)) === null) {
          const vectors = await this.embedding.embed(inputs);
          deadline.throwIfAborted();
          await writeVectorsArtifact(this.blobs, vectorsKey, this.embedder.model, vectors);
          if (place.bucketId) written.push(vectorsKey);
        }
      }
      const now = this.clock.now();
      await this.writer.decide(
        {
          type: 'RecordIngested',
          ...base,
          filename: row.filename,
          chunksKey,
          vectorsKey,
          model: vectorsKey ? this.embedder.model : null,
          dimensions: vectorsKey ? this.embedder.dimensions : 0,
          chunkCount: artifact.chunks.length,
          usageTokens,
          mode: row.parsingStrategy,
          contextualization: plan.fileContext || metadata !== null,
          queueMs: Math.max(0, claim.startedAt.getTime() - row.createdAt.getTime()),
          ingestionMs: Date.now() - t0,
          totalMs: Math.max(0, now.getTime() - row.createdAt.getTime()),
        },
        'system',
        false,
        { held: { state: parsed.state, revision: parsed.revision ?? -1 } },
      );
      this.ingested.files++;
      this.ingested.chunks += artifact.chunks.length;
      if (place.bucketId)
        await this.health
          ?.worked(place.bucketId)
          .catch((e: Error) =>
            this.logger.warn(`bucket ${place.bucketId}: recording that it works again failed: ${e.message}`),
          );
    } catch (err) {
      if (err instanceof ConflictError || err instanceof NotFoundError) {
        // superseded: removed, re-added or lease lost; objects written for a generation that is gone are removed
        if (written.length) await this.dropIfGone(row, written);
        return;
      }
      if (err instanceof BucketAccessError && place.bucketId)
        await this.health
          ?.failed(place.bucketId, err.message)
          .catch((e: Error) =>
            this.logger.warn(`bucket ${place.bucketId}: recording its failure failed: ${e.message}`),
          );
      const { permanent, code, message } = describeFailure(err, this.config.attemptTimeoutMs);
      const giveUp = permanent || claim.attempt >= this.config.maxAttempts;
      const retryAt = giveUp
        ? null
        : new Date(this.clock.now().getTime() + this.config.retryBaseMs * 2 ** (claim.attempt - 1));
      this.logger.warn(
        `${row.filename} (${row.fileId}): ${message}${retryAt ? `; retrying at ${retryAt.toISOString()}` : ''}`,
      );
      await this.writer
        .decide({ type: 'RecordIngestionFailed', ...base, error: { message, code }, retryAt }, 'system', false)
        .catch((e: Error) => {
          if (!(e instanceof ConflictError || e instanceof NotFoundError)) throw e;
        });
    }
  }

  /**
   * Renews the lease every third of its length while `work` runs, so leases can be short: a crashed
   * worker's file is taken over within one lease. A renewal the decider refuses (the file was removed,
   * re-added or taken over) stops renewing; the work's own results are then refused the same way.
   */
  private async withRenewedLease(row: StoreFileRow, work: () => Promise<void>): Promise<void> {
    let renewing = true;
    const renew = async () => {
      if (!renewing) return;
      await this.writer
        .decide(
          {
            type: 'RenewIngestionLease',
            storeId: row.storeId,
            organizationId: row.organizationId,
            fileId: row.fileId,
            generation: row.generation,
            workerId: this.workerId,
            leaseMs: this.config.leaseMs,
          },
          'system',
          false,
        )
        .catch((err: Error) => {
          if (err instanceof ConflictError || err instanceof NotFoundError) renewing = false;
          else this.logger.warn(`renewing the lease on ${row.fileId} failed: ${err.message}`);
        });
    };
    const timer = setInterval(() => void renew(), Math.max(250, Math.floor(this.config.leaseMs / 3)));
    try {
      await work();
    } finally {
      renewing = false;
      clearInterval(timer);
    }
  }

  private async readContent(key: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    try {
      for await (const c of await this.blobs.get(key)) parts.push(c as Buffer);
    } catch (err) {
      if (err instanceof BucketAccessError) throw err;
      if ((await this.blobs.size(key)) === null) throw contentGone();
      throw err;
    }
    return Buffer.concat(parts);
  }

  /** After a refused result: when the store file was removed or re-added meanwhile, what this attempt wrote into its bucket goes. */
  private async dropIfGone(row: StoreFileRow, keys: string[]): Promise<void> {
    try {
      const generation = await this.writer.currentGeneration(row.storeId, row.fileId);
      if (generation === row.generation) return; // the same generation lives on (another worker took over): its objects stay
      for (const k of keys) await this.blobs.delete(k);
    } catch (err) {
      this.logger.warn(`objects of a superseded ingestion of ${row.fileId} not removed: ${(err as Error).message}`);
    }
  }
}

/** A store file's key among the files in flight, as `dueForIngestion` excludes them. */
const keyOf = (row: StoreFileRow) => `${row.fileId}:${row.storeId}`;

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Readable } from 'stream';
import {
  Clock,
  IdGenerator,
  NotFoundError,
  PayloadTooLargeError,
  Position,
  ProjectionName,
  ValidationFailedError,
  isUuid,
} from '@larder/kernel';
import { CommandResult, commandHandler, CommandWriter, HandleOptions, Writes, foldEvents } from '@larder/event-store';
import { BLOB_STORAGE, BlobStorage, BlobTooLargeError } from '@larder/blob-storage';
import { FilesReader } from '@larder/projections/files/files.reader';
import { FileCommand, fileDecider, FileState, fileView, isLive } from './file.aggregate';
import { fileStream } from './streams';
import { FILES_CONFIG, FilesConfig } from './files.config';
import { FileObjectResponse, toFileObject } from './file.response';

export const FILE_PROJECTIONS: readonly ProjectionName[] = ['files'];

/** One decider bound to its stream: every write to a file goes through it. */
export const handleFile = commandHandler(fileDecider, (c: FileCommand) => fileStream(c.fileId));

export interface FileDecision {
  /** The file as now stored: from the read model once it has caught up, else from the decided state; null once deleted. */
  file: FileObjectResponse | null;
  state: FileState;
  position: Position | null;
  /** Whether the read model showed the write before the answer. */
  settled: boolean;
}

/**
 * The write side of a file: content goes to blob storage first, then one decision is appended. New
 * content is deleted again only when that append failed (refused or thrown); once the event is stored
 * it is a fact, and a late read model only marks the response (`Larder-Read-Lag`).
 */
@Injectable()
export class FileWriter {
  private readonly logger = new Logger('Files');
  private readonly files: CommandWriter<FileState, FileCommand>;

  constructor(
    private readonly writes: Writes,
    @Inject(BLOB_STORAGE) readonly blobs: BlobStorage,
    @Inject(FILES_CONFIG) private readonly config: FilesConfig,
    private readonly reader: FilesReader,
  ) {
    this.files = writes.writer(handleFile, FILE_PROJECTIONS);
  }

  get clock(): Clock {
    return this.writes.clock;
  }

  get ids(): IdGenerator {
    return this.writes.ids;
  }

  blobKey(organizationId: string, fileId: string): string {
    return `files/${organizationId}/${fileId}/${this.writes.ids.uuid()}`;
  }

  /** Streams `body` into blob storage; rejects empty and oversized content with nothing left behind. */
  async storeContent(key: string, body: Readable, mimeType: string): Promise<{ bytes: number; sha256: string }> {
    let stored;
    try {
      stored = await this.blobs.put(key, body, { contentType: mimeType, maxBytes: this.config.maxFileBytes });
    } catch (err) {
      await this.blobs.delete(key).catch(() => undefined);
      if (err instanceof BlobTooLargeError)
        throw new PayloadTooLargeError(`File exceeds the maximum size of ${this.config.maxFileBytes} bytes`);
      throw err;
    }
    if (stored.bytes === 0) {
      await this.blobs.delete(key);
      throw new ValidationFailedError([{ loc: ['body', 'file'], msg: 'File is empty', type: 'value_error' }]);
    }
    return stored;
  }

  /**
   * What the rest of the request says once stored content is in place (text parts after the file
   * part): a request that turns out malformed or invalid deletes that content again.
   */
  async afterContent<T>(key: string, rest: Promise<T>): Promise<T> {
    try {
      return await rest;
    } catch (err) {
      await this.blobs.delete(key).catch(() => undefined);
      throw err;
    }
  }

  /** The file's state from its own stream (never from a read model, which may lag). */
  async current(fileId: string): Promise<FileState> {
    return (await this.currentWithAuthor(fileId)).state;
  }

  /** The file's state and the actor (API key) who wrote its current content, from its own stream. */
  async currentWithAuthor(fileId: string): Promise<{ state: FileState; author: string | null }> {
    if (!isUuid(fileId)) return { state: fileDecider.initialState(), author: null };
    const events = await this.writes.store.readStream(fileStream(fileId));
    let author: string | null = null;
    for (const e of events) {
      if (e.type === 'FileUploaded' || e.type === 'FileReplaced') author = e.metadata.actor ?? null;
      else if (e.type === 'FileDeleted') author = null;
    }
    return { state: foldEvents(fileDecider, events), author };
  }

  /** 404 unless the file exists in this organization. */
  async mustExist(organizationId: string, fileId: string): Promise<FileState> {
    const state = await this.current(fileId);
    if (!isLive(state, organizationId)) throw new NotFoundError(`File ${fileId} not found`);
    return state;
  }

  /**
   * Appends one decision; `newBlob` (content stored for it) is deleted when the append fails. After a
   * successful append nothing here throws for a late read model.
   */
  async decide(
    command: FileCommand,
    actor: string,
    newBlob?: string,
    options: Pick<HandleOptions<FileState>, 'held'> = {},
  ): Promise<FileDecision> {
    if (!isUuid(command.fileId)) throw new NotFoundError(`File ${command.fileId} not found`);
    let result: CommandResult<FileState>;
    try {
      result = await this.files.run(command, actor, options);
    } catch (err) {
      if (newBlob)
        await this.blobs
          .delete(newBlob)
          .catch((e: Error) => this.logger.warn(`content ${newBlob} of a refused write not deleted: ${e.message}`));
      throw err;
    }
    // stored: from here on the write is a fact
    const decided = { ...result, settled: await this.files.settle(result.position) };
    const file =
      result.state.status === 'present'
        ? toFileObject(
            await this.files.read<Parameters<typeof toFileObject>[0]>(
              decided,
              () => this.reader.get(command.organizationId, command.fileId),
              (s) => fileView(command.fileId, s),
            ),
          )
        : null;
    return { file, state: result.state, position: result.position, settled: decided.settled };
  }

  /**
   * Deletes content a stored write superseded. While the read model still points at it (it was late),
   * downloads may still read it, so it goes once the read model has caught up.
   */
  async deleteSuperseded(blobKey: string, decision: FileDecision, what: string): Promise<void> {
    const remove = () =>
      this.blobs.delete(blobKey).catch((e: Error) => this.logger.warn(`${what} not deleted: ${e.message}`));
    if (decision.settled) return remove();
    void this.afterCatchUp(decision.position).then(remove);
  }

  private async afterCatchUp(position: Position | null): Promise<void> {
    for (let delay = 100; delay <= 60_000; delay *= 2) {
      if (
        await this.writes.consistency.waitFor(FILE_PROJECTIONS, position).then(
          () => true,
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, delay).unref());
    }
  }
}

import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Readable } from 'stream';
import {
  CLOCK,
  Clock,
  FILE_REFERENCES,
  FileReferences,
  FileUploader,
  UploadedFileInfo,
  ID_GENERATOR,
  IdGenerator,
  NotFoundError,
  PayloadTooLargeError,
  READ_MODEL_CONSISTENCY,
  ReadModelConsistency,
  ValidationFailedError,
} from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { BLOB_STORAGE, BlobStorage, BlobTooLargeError } from '@larder/blob-storage';
import { FilesReader } from '@larder/projections/files/files.reader';
import { fileDecider, FileCommand } from './file.aggregate';
import { fileStream } from './streams';
import { FILES_CONFIG, FilesConfig } from './files.config';
import { FileObjectResponse, toFileObject } from './file.response';
import { resolveMimeType } from './mime';

export const FILE_PROJECTIONS = ['files'] as const;

/** Stores content first, then appends the event; a failed append removes the content again. */
@Injectable()
export class FileWriter implements FileUploader {
  private readonly logger = new Logger('Files');
  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(BLOB_STORAGE) readonly blobs: BlobStorage,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(ID_GENERATOR) readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) readonly consistency: ReadModelConsistency,
    @Inject(FILES_CONFIG) readonly config: FilesConfig,
    readonly reader: FilesReader,
    @Optional() @Inject(FILE_REFERENCES) private readonly references?: FileReferences,
  ) {}

  blobKey(organizationId: string, fileId: string): string {
    return `files/${organizationId}/${fileId}/${this.ids.uuid()}`;
  }

  /** Streams `body` into blob storage; rejects empty and oversized content with nothing left behind. */
  async storeContent(key: string, body: Readable, mimeType: string): Promise<{ bytes: number; sha256: string }> {
    let stored;
    try {
      stored = await this.blobs.put(key, body, { contentType: mimeType, maxBytes: this.config.maxFileBytes });
    } catch (err) {
      await this.blobs.delete(key).catch(() => undefined);
      if (err instanceof BlobTooLargeError) throw new PayloadTooLargeError(`File exceeds the maximum size of ${this.config.maxFileBytes} bytes`);
      throw err;
    }
    if (stored.bytes === 0) {
      await this.blobs.delete(key);
      throw new ValidationFailedError([{ loc: ['body', 'file'], msg: 'File is empty', type: 'value_error' }]);
    }
    return stored;
  }

  async decide(command: FileCommand, actor: string, cleanupOnFailure?: string): Promise<FileObjectResponse | null> {
    try {
      const result = await handleCommand(this.store, fileStream(command.fileId), fileDecider, command, { orgId: command.organizationId, actor }, { newIds: () => this.ids.uuid() });
      await this.consistency.waitFor(FILE_PROJECTIONS, result.position);
    } catch (err) {
      if (cleanupOnFailure) await this.blobs.delete(cleanupOnFailure).catch(() => undefined);
      throw err;
    }
    const row = await this.reader.get(command.organizationId, command.fileId);
    return row ? toFileObject(row) : null;
  }

  async upload(organizationId: string, actor: string, filename: string, mimeType: string | undefined, body: Readable): Promise<FileObjectResponse & UploadedFileInfo> {
    mimeType = resolveMimeType(mimeType, filename);
    const fileId = this.ids.uuid();
    const key = this.blobKey(organizationId, fileId);
    const stored = await this.storeContent(key, body, mimeType);
    const file = await this.decide(
      { type: 'UploadFile', fileId, organizationId, filename, mimeType, bytes: stored.bytes, sha256: stored.sha256, blobKey: key, now: this.clock.now() },
      actor,
      key,
    );
    return { ...file!, mimeType, sha256: stored.sha256, blobKey: key };
  }

  async replace(organizationId: string, actor: string, fileId: string, filename: string, mimeType: string, body: Readable): Promise<FileObjectResponse> {
    const before = await this.reader.get(organizationId, fileId);
    if (!before) throw new NotFoundError(`File ${fileId} not found`);
    const key = this.blobKey(organizationId, fileId);
    const stored = await this.storeContent(key, body, mimeType);
    const file = await this.decide(
      { type: 'ReplaceFile', fileId, organizationId, filename, mimeType, bytes: stored.bytes, sha256: stored.sha256, blobKey: key, now: this.clock.now() },
      actor,
      key,
    );
    await this.blobs.delete(before.blobKey).catch((e: Error) => this.logger.warn(`old content of ${fileId} not deleted: ${e.message}`));
    return file!;
  }

  async remove(organizationId: string, actor: string, fileId: string): Promise<{ id: string; deleted: true; object: 'file' }> {
    const before = await this.reader.get(organizationId, fileId);
    if (!before) throw new NotFoundError(`File ${fileId} not found`);
    // Stores first: once this returns, no store lists the file and no search returns its chunks.
    await this.references?.removeEverywhere(organizationId, fileId, actor);
    await this.decide({ type: 'DeleteFile', fileId, organizationId, now: this.clock.now() }, actor);
    await this.blobs.delete(before.blobKey).catch((e: Error) => this.logger.warn(`content of ${fileId} not deleted: ${e.message}`));
    return { id: fileId, deleted: true, object: 'file' };
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Readable } from 'stream';
import {
  BadRequestError,
  CLOCK,
  Clock,
  ID_GENERATOR,
  IdGenerator,
  NotFoundError,
  PayloadTooLargeError,
  READ_MODEL_CONSISTENCY,
  ReadModelConsistency,
  uuidFrom,
  ConflictError,
} from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { BLOB_STORAGE, BlobStorage, BlobTooLargeError, PartInfo } from '@larder/blob-storage';
import { FileUploadsReader } from '@larder/projections/file-uploads/file-uploads.reader';
import { FileUploadEntity } from '@larder/projections/file-uploads/file-upload.entity';
import { checkCompletion, uploadDecider, UploadCommand, UploadState } from '../multipart-upload.aggregate';
import { fileUploadStream } from '../streams';
import { FILES_CONFIG, FilesConfig } from '../files.config';
import { FileWriter } from '../file.writer';
import { FileObjectResponse, toFileObject } from '../file.response';
import { PartUrlSigner } from './part-url.signer';

export interface UploadObject {
  id: string;
  filename: string;
  file_size: number;
  mime_type: string;
  part_count: number;
  created_at: string;
}
export interface UploadDetail extends UploadObject {
  completed_parts: Array<{ part_number: number; etag: string }>;
  part_urls: Array<{ part_number: number; url: string }>;
}

const UPLOAD_PROJECTIONS = ['file-uploads'] as const;

@Injectable()
export class UploadWriter {
  private readonly logger = new Logger('Uploads');
  private readonly signer: PartUrlSigner;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
    @Inject(FILES_CONFIG) private readonly config: FilesConfig,
    private readonly reader: FileUploadsReader,
    private readonly files: FileWriter,
  ) {
    this.signer = new PartUrlSigner(config.signingSecret);
  }

  private async decide(command: UploadCommand, orgId: string, actor: string) {
    const result = await handleCommand(this.store, fileUploadStream(command.uploadId), uploadDecider, command, { orgId, actor }, { newIds: () => this.ids.uuid() });
    await this.consistency.waitFor(UPLOAD_PROJECTIONS, result.position);
    return result;
  }

  private async partUrls(u: FileUploadEntity, baseUrl: string, numbers: number[]): Promise<Array<{ part_number: number; url: string }>> {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + this.config.partUrlTtlSeconds;
    const out = [];
    for (const n of numbers) {
      const presigned = await this.blobs.presignPart(u.blobKey, u.storageUploadId, n, this.config.partUrlTtlSeconds);
      out.push({ part_number: n, url: presigned ?? this.signer.url(this.config.publicUrl ?? baseUrl, u.id, n, expires) });
    }
    return out;
  }

  private toObject(u: FileUploadEntity): UploadObject {
    return { id: u.id, filename: u.filename, file_size: Number(u.fileSize), mime_type: u.mimeType, part_count: u.partCount, created_at: u.createdAt.toISOString() };
  }

  async create(
    organizationId: string,
    actor: string,
    req: { filename: string; file_size: number; mime_type: string; part_count: number },
    baseUrl: string,
  ): Promise<{ id: string; part_urls: Array<{ part_number: number; url: string }> }> {
    if (req.file_size > this.config.maxFileBytes) throw new PayloadTooLargeError(`file_size exceeds the maximum of ${this.config.maxFileBytes} bytes`);
    if (req.part_count > req.file_size) throw new BadRequestError('part_count cannot exceed file_size');
    const uploadId = this.ids.uuid();
    const fileId = uuidFrom(`larder:upload-file:${uploadId}`);
    const blobKey = this.files.blobKey(organizationId, fileId);
    const storageUploadId = await this.blobs.createMultipart(blobKey, req.mime_type);
    const now = this.clock.now();
    await this.decide(
      {
        type: 'CreateMultipartUpload',
        uploadId,
        organizationId,
        filename: req.filename,
        fileSize: req.file_size,
        mimeType: req.mime_type,
        partCount: req.part_count,
        blobKey,
        storageUploadId,
        now,
        expiresAt: new Date(now.getTime() + this.config.uploadTtlMs),
      },
      organizationId,
      actor,
    );
    const u = (await this.reader.get(organizationId, uploadId))!;
    return { id: uploadId, part_urls: await this.partUrls(u, baseUrl, range(1, req.part_count)) };
  }

  async list(organizationId: string): Promise<{ data: UploadObject[] }> {
    return { data: (await this.reader.inProgress(organizationId)).map((u) => this.toObject(u)) };
  }

  private async receivedParts(u: FileUploadEntity): Promise<PartInfo[]> {
    const local = Object.entries(u.parts).map(([n, p]) => ({ partNumber: Number(n), etag: p.etag, bytes: Number(p.bytes) }));
    if (local.length) return local.sort((a, b) => a.partNumber - b.partNumber);
    try {
      return await this.blobs.listParts(u.blobKey, u.storageUploadId);
    } catch {
      return [];
    }
  }

  async detail(organizationId: string, uploadId: string, baseUrl: string): Promise<UploadDetail> {
    const u = await this.reader.get(organizationId, uploadId);
    if (!u || u.status !== 'in_progress') throw new NotFoundError(`Upload ${uploadId} not found`);
    const parts = await this.receivedParts(u);
    const done = new Set(parts.map((p) => p.partNumber));
    return {
      ...this.toObject(u),
      completed_parts: parts.map((p) => ({ part_number: p.partNumber, etag: p.etag })),
      part_urls: await this.partUrls(u, baseUrl, range(1, u.partCount).filter((n) => !done.has(n))),
    };
  }

  /** The unauthenticated PUT behind a signed part URL (local-disk storage). */
  async receivePart(uploadId: string, partNumber: number, expires: string | undefined, signature: string | undefined, body: Readable): Promise<string> {
    const verdict = this.signer.verify(uploadId, partNumber, expires, signature, this.clock.now().getTime());
    if (verdict !== 'ok') throw new ForbiddenPartUrl(verdict);
    const u = await this.reader.get(null, uploadId);
    if (!u || u.status !== 'in_progress') throw new NotFoundError(`Upload ${uploadId} not found or no longer in progress`);
    if (partNumber < 1 || partNumber > u.partCount) throw new BadRequestError(`part number must be between 1 and ${u.partCount}`);
    let part: PartInfo;
    try {
      part = await this.blobs.putPart(u.blobKey, u.storageUploadId, partNumber, body, Number(u.fileSize));
    } catch (err) {
      if (err instanceof BlobTooLargeError) throw new PayloadTooLargeError('part is larger than the whole file');
      throw err;
    }
    await this.decide({ type: 'ReceivePart', uploadId, partNumber, etag: part.etag, bytes: part.bytes, now: this.clock.now() }, u.organizationId, 'presigned-url');
    return part.etag;
  }

  async complete(organizationId: string, actor: string, uploadId: string, parts: Array<{ part_number: number; etag: string }>): Promise<FileObjectResponse> {
    const u = await this.reader.get(organizationId, uploadId);
    if (!u) throw new NotFoundError(`Upload ${uploadId} not found`);
    if (u.status !== 'in_progress') throw new ConflictError(`Upload ${uploadId} is ${u.status === 'completed' ? 'already completed' : 'aborted'}`);
    const given = parts.map((p) => ({ partNumber: p.part_number, etag: p.etag }));
    const local = (await this.blobs.presignPart(u.blobKey, u.storageUploadId, 1, 60)) === null;
    // Check before assembling anything: every part present, ETags as stored, sizes adding up.
    const state = (await this.store.readStream(fileUploadStream(uploadId))).reduce(
      (s, e) => uploadDecider.evolve(s, { type: e.type, data: e.data } as never),
      uploadDecider.initialState() as UploadState,
    );
    checkCompletion(state, given, local);
    const fileId = uuidFrom(`larder:upload-file:${uploadId}`);
    const stored = await this.blobs.completeMultipart(u.blobKey, u.storageUploadId, given.sort((a, b) => a.partNumber - b.partNumber));
    if (stored.bytes !== Number(u.fileSize)) {
      await this.blobs.delete(u.blobKey).catch(() => undefined);
      throw new BadRequestError(`the parts hold ${stored.bytes} bytes but file_size is ${u.fileSize}`);
    }
    // File first (its id derives from the upload, so a retried completion finds it), then the upload.
    const existing = await this.files.reader.get(organizationId, fileId);
    const file = existing
      ? toFileObject(existing)
      : await this.files.decide(
        { type: 'UploadFile', fileId, organizationId, uploadId, filename: u.filename, mimeType: u.mimeType, bytes: stored.bytes, sha256: stored.sha256, blobKey: u.blobKey, now: this.clock.now() },
        actor,
      );
    await this.decide({ type: 'CompleteMultipartUpload', uploadId, organizationId, fileId, parts: given, verifyLocalParts: false, now: this.clock.now() }, organizationId, actor);
    if (!file) throw new NotFoundError(`File ${fileId} was deleted while its upload completed`);
    return file;
  }

  async abort(organizationId: string | null, actor: string, uploadId: string, reason: 'aborted' | 'expired' = 'aborted'): Promise<{ id: string; deleted: true; object: 'file' }> {
    const u = await this.reader.get(organizationId, uploadId);
    if (!u) throw new NotFoundError(`Upload ${uploadId} not found`);
    await this.decide({ type: 'AbortMultipartUpload', uploadId, organizationId, reason, now: this.clock.now() }, u.organizationId, actor);
    await this.blobs.abortMultipart(u.blobKey, u.storageUploadId).catch((e: Error) => this.logger.warn(`parts of upload ${uploadId} not deleted: ${e.message}`));
    return { id: uploadId, deleted: true, object: 'file' };
  }

  /** Aborts uploads past their expiry and deletes their parts. */
  async sweepExpired(): Promise<number> {
    const expired = await this.reader.expired(this.clock.now());
    for (const u of expired) await this.abort(null, 'expiry', u.id, 'expired').catch((e: Error) => this.logger.warn(`expiring ${u.id}: ${e.message}`));
    return expired.length;
  }
}

export class ForbiddenPartUrl extends Error {
  constructor(readonly reason: 'invalid' | 'expired') {
    super(reason === 'expired' ? 'This part URL has expired; get fresh ones from GET /v1/files/uploads/{upload_id}' : 'Invalid part URL signature');
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

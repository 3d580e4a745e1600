import { BadRequestError, ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { MultipartUploadEvent } from './events';

export interface UploadState {
  status: 'absent' | 'in_progress' | 'completed' | 'aborted';
  organizationId: string | null;
  partCount: number;
  fileSize: number;
  parts: Map<number, { etag: string; bytes: number }>;
  expiresAt: string | null;
  /** What the upload's part URLs and response need, so writes never depend on the read model. */
  filename: string | null;
  mimeType: string | null;
  description: string | null;
  blobKey: string | null;
  storageUploadId: string | null;
  createdAt: string | null;
  /** The file a completion created. */
  fileId: string | null;
}

export type UploadCommand =
  | {
      type: 'CreateMultipartUpload';
      uploadId: string;
      organizationId: string;
      filename: string;
      fileSize: number;
      mimeType: string;
      partCount: number;
      blobKey: string;
      storageUploadId: string;
      now: Date;
      expiresAt: Date;
      description?: string | null;
    }
  | { type: 'ReceivePart'; uploadId: string; partNumber: number; etag: string; bytes: number; now: Date }
  /** `verifyLocalParts`: Larder received the parts itself and checks them against the client's list. */
  | {
      type: 'CompleteMultipartUpload';
      uploadId: string;
      organizationId: string;
      fileId: string;
      parts: Array<{ partNumber: number; etag: string }>;
      verifyLocalParts: boolean;
      now: Date;
    }
  | {
      type: 'AbortMultipartUpload';
      uploadId: string;
      organizationId: string | null;
      reason: 'aborted' | 'expired';
      now: Date;
    };

export const uploadDecider: Decider<UploadState, UploadCommand, MultipartUploadEvent> = {
  initialState: () => ({
    status: 'absent',
    organizationId: null,
    partCount: 0,
    fileSize: 0,
    parts: new Map(),
    expiresAt: null,
    filename: null,
    mimeType: null,
    description: null,
    blobKey: null,
    storageUploadId: null,
    createdAt: null,
    fileId: null,
  }),
  evolve(s, e) {
    switch (e.type) {
      case 'MultipartUploadCreated': {
        const d = e.data;
        return {
          status: 'in_progress',
          organizationId: d.organizationId,
          partCount: d.partCount,
          fileSize: d.fileSize,
          parts: new Map(),
          expiresAt: d.expiresAt,
          filename: d.filename,
          mimeType: d.mimeType,
          description: d.description ?? null,
          blobKey: d.blobKey,
          storageUploadId: d.storageUploadId,
          createdAt: d.createdAt,
          fileId: null,
        };
      }
      case 'MultipartUploadPartReceived': {
        const parts = new Map(s.parts);
        parts.set(e.data.partNumber, { etag: e.data.etag, bytes: e.data.bytes });
        return { ...s, parts };
      }
      case 'MultipartUploadCompleted':
        return { ...s, status: 'completed', fileId: e.data.fileId };
      case 'MultipartUploadAborted':
        return { ...s, status: 'aborted' };
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'CreateMultipartUpload') {
      if (s.status !== 'absent') throw new ConflictError(`upload ${c.uploadId} already exists`);
      const { uploadId, organizationId, filename, fileSize, mimeType, partCount, blobKey, storageUploadId } = c;
      return [
        {
          type: 'MultipartUploadCreated',
          data: {
            uploadId,
            organizationId,
            filename,
            fileSize,
            mimeType,
            partCount,
            blobKey,
            storageUploadId,
            createdAt: at,
            expiresAt: c.expiresAt.toISOString(),
            ...(c.description ? { description: c.description } : {}),
          },
        },
      ];
    }
    if (c.type === 'ReceivePart') {
      if (s.status !== 'in_progress')
        throw new NotFoundError(`Upload ${c.uploadId} not found or no longer in progress`);
      if (c.partNumber < 1 || c.partNumber > s.partCount)
        throw new BadRequestError(`part_number must be between 1 and ${s.partCount}`);
      return [
        {
          type: 'MultipartUploadPartReceived',
          data: { uploadId: c.uploadId, partNumber: c.partNumber, etag: c.etag, bytes: c.bytes, at },
        },
      ];
    }
    if (s.status === 'absent' || (c.organizationId !== null && s.organizationId !== c.organizationId))
      throw new NotFoundError(`Upload ${c.uploadId} not found`);
    if (c.type === 'AbortMultipartUpload') {
      if (s.status === 'aborted') return [];
      if (s.status === 'completed') throw new ConflictError(`Upload ${c.uploadId} is already completed`);
      return [{ type: 'MultipartUploadAborted', data: { uploadId: c.uploadId, reason: c.reason, at } }];
    }
    if (s.status !== 'in_progress')
      throw new ConflictError(`Upload ${c.uploadId} is ${s.status === 'completed' ? 'already completed' : 'aborted'}`);
    checkCompletion(s, c.parts, c.verifyLocalParts);
    return [{ type: 'MultipartUploadCompleted', data: { uploadId: c.uploadId, fileId: c.fileId, at } }];
  },
};

/** Every part 1..part_count once, ETags as received, sizes adding up to file_size. */
export function checkCompletion(
  s: UploadState,
  parts: Array<{ partNumber: number; etag: string }>,
  verifyLocalParts: boolean,
): void {
  const numbers = parts.map((p) => p.partNumber).sort((a, b) => a - b);
  if (new Set(numbers).size !== numbers.length) throw new BadRequestError('parts lists a part_number more than once');
  const missing: number[] = [];
  for (let n = 1; n <= s.partCount; n++) if (!numbers.includes(n)) missing.push(n);
  if (missing.length)
    throw new BadRequestError(
      `parts is missing part_number ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`,
    );
  if (numbers.some((n) => n > s.partCount))
    throw new BadRequestError(`part_number must be between 1 and ${s.partCount}`);
  if (!verifyLocalParts) return;
  let total = 0;
  for (const p of parts) {
    const got = s.parts.get(p.partNumber);
    if (!got) throw new BadRequestError(`part ${p.partNumber} was never uploaded`);
    if (got.etag !== p.etag) throw new BadRequestError(`ETag of part ${p.partNumber} does not match the uploaded part`);
    total += got.bytes;
  }
  if (total !== s.fileSize) throw new BadRequestError(`the parts hold ${total} bytes but file_size is ${s.fileSize}`);
}

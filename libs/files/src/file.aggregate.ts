import { ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { FileEvent } from './events';

export interface FileState {
  status: 'absent' | 'present' | 'deleted';
  organizationId: string | null;
  version: number;
  blobKey: string | null;
  /** The content the latest replace superseded: deleted once that replace is stored. */
  replacedBlobKey: string | null;
  /** What the file's response shows, so a write can answer from its decided state when the read model is late. */
  filename: string | null;
  mimeType: string | null;
  bytes: number;
  sha256: string | null;
  description: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** OpenAI's `purpose` the upload named; null: none. */
  purpose: string | null;
}

export interface FileContent {
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  blobKey: string;
}

export type FileCommand =
  | ({
      type: 'UploadFile';
      fileId: string;
      organizationId: string;
      now: Date;
      uploadId?: string;
      purpose?: string | null;
      description?: string | null;
    } & FileContent)
  | ({
      type: 'ReplaceFile';
      fileId: string;
      organizationId: string;
      now: Date;
      description?: string | null;
    } & FileContent)
  | { type: 'DeleteFile'; fileId: string; organizationId: string; now: Date };

export const initialFileState = (): FileState => ({
  status: 'absent',
  organizationId: null,
  version: 0,
  blobKey: null,
  replacedBlobKey: null,
  filename: null,
  mimeType: null,
  bytes: 0,
  sha256: null,
  description: null,
  createdAt: null,
  updatedAt: null,
  purpose: null,
});

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: initialFileState,
  evolve(state, e) {
    switch (e.type) {
      case 'FileUploaded': {
        const d = e.data;
        return {
          status: 'present',
          organizationId: d.organizationId,
          version: d.version,
          blobKey: d.blobKey,
          replacedBlobKey: null,
          filename: d.filename,
          mimeType: d.mimeType,
          bytes: d.bytes,
          sha256: d.sha256,
          description: d.description ?? null,
          createdAt: d.at,
          updatedAt: d.at,
          purpose: d.purpose ?? null,
        };
      }
      case 'FileReplaced': {
        const d = e.data;
        return {
          ...state,
          version: d.version,
          blobKey: d.blobKey,
          replacedBlobKey: state.blobKey,
          filename: d.filename,
          mimeType: d.mimeType,
          bytes: d.bytes,
          sha256: d.sha256,
          description: d.description !== undefined ? d.description : state.description,
          updatedAt: d.at,
        };
      }
      case 'FileDeleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'UploadFile') {
      if (s.status !== 'absent') throw new ConflictError(`file ${c.fileId} already exists`);
      const { filename, mimeType, bytes, sha256, blobKey } = c;
      return [
        {
          type: 'FileUploaded',
          data: {
            fileId: c.fileId,
            organizationId: c.organizationId,
            filename,
            mimeType,
            bytes,
            sha256,
            blobKey,
            version: 1,
            at,
            ...(c.uploadId ? { uploadId: c.uploadId } : {}),
            ...(c.description ? { description: c.description } : {}),
            ...(c.purpose ? { purpose: c.purpose } : {}),
          },
        },
      ];
    }
    if (!isLive(s, c.organizationId)) throw new NotFoundError(`File ${c.fileId} not found`);
    if (c.type === 'ReplaceFile') {
      const { filename, mimeType, bytes, sha256, blobKey } = c;
      const description = c.description !== undefined ? { description: c.description } : {};
      return [
        {
          type: 'FileReplaced',
          data: {
            fileId: c.fileId,
            filename,
            mimeType,
            bytes,
            sha256,
            blobKey,
            version: s.version + 1,
            at,
            ...description,
          },
        },
      ];
    }
    return [
      { type: 'FileDeleted', data: { fileId: c.fileId, organizationId: c.organizationId, blobKey: s.blobKey!, at } },
    ];
  },
};

/** Whether the file exists and belongs to the organization. */
export function isLive(s: FileState, organizationId: string): boolean {
  return s.status === 'present' && s.organizationId === organizationId;
}

/** The file as its read model row shows it, built from the decided state. */
export function fileView(
  id: string,
  s: FileState,
): {
  id: string;
  filename: string;
  bytes: number;
  mimeType: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  purpose: string | null;
} {
  return {
    id,
    filename: s.filename!,
    bytes: s.bytes,
    mimeType: s.mimeType!,
    version: s.version,
    createdAt: new Date(s.createdAt!),
    updatedAt: new Date(s.updatedAt!),
    purpose: s.purpose,
  };
}

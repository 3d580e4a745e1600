import { ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { FileEvent } from './events';

export interface FileState {
  status: 'absent' | 'present' | 'deleted';
  organizationId: string | null;
  version: number;
  blobKey: string | null;
}

export interface FileContent {
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  blobKey: string;
}

export type FileCommand =
  | ({ type: 'UploadFile'; fileId: string; organizationId: string; now: Date; uploadId?: string } & FileContent)
  | ({ type: 'ReplaceFile'; fileId: string; organizationId: string; now: Date } & FileContent)
  | { type: 'DeleteFile'; fileId: string; organizationId: string; now: Date };

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: () => ({ status: 'absent', organizationId: null, version: 0, blobKey: null }),
  evolve(state, e) {
    switch (e.type) {
      case 'FileUploaded':
        return { status: 'present', organizationId: e.data.organizationId, version: e.data.version, blobKey: e.data.blobKey };
      case 'FileReplaced':
        return { ...state, version: e.data.version, blobKey: e.data.blobKey };
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
          data: { fileId: c.fileId, organizationId: c.organizationId, filename, mimeType, bytes, sha256, blobKey, version: 1, at, ...(c.uploadId ? { uploadId: c.uploadId } : {}) },
        },
      ];
    }
    if (s.status !== 'present' || s.organizationId !== c.organizationId) throw new NotFoundError(`File ${c.fileId} not found`);
    if (c.type === 'ReplaceFile') {
      const { filename, mimeType, bytes, sha256, blobKey } = c;
      return [{ type: 'FileReplaced', data: { fileId: c.fileId, filename, mimeType, bytes, sha256, blobKey, version: s.version + 1, at } }];
    }
    return [{ type: 'FileDeleted', data: { fileId: c.fileId, organizationId: c.organizationId, blobKey: s.blobKey!, at } }];
  },
};

export interface FileUploaded {
  type: 'FileUploaded';
  data: {
    fileId: string;
    organizationId: string;
    filename: string;
    mimeType: string;
    bytes: number;
    sha256: string;
    blobKey: string;
    version: number;
    at: string;
    uploadId?: string;
    /** What the uploader said the file is (`q` of the file list matches it); absent when none was given. */
    description?: string;
    /** OpenAI's `purpose`, when the upload named one (absent otherwise). */
    purpose?: string;
  };
}
export interface FileReplaced {
  type: 'FileReplaced';
  data: {
    fileId: string;
    filename: string;
    mimeType: string;
    bytes: number;
    sha256: string;
    blobKey: string;
    version: number;
    at: string;
    /** Present when the replace set the description (null: cleared); absent: the description is kept. */
    description?: string | null;
  };
}
/** Later contexts (stores) react to this to remove the file from every store that references it. */
export interface FileDeleted {
  type: 'FileDeleted';
  data: { fileId: string; organizationId: string; blobKey: string; at: string };
}
export type FileEvent = FileUploaded | FileReplaced | FileDeleted;
export const FILE_EVENT_TYPES = ['FileUploaded', 'FileReplaced', 'FileDeleted'] as const;

export interface MultipartUploadCreated {
  type: 'MultipartUploadCreated';
  data: {
    uploadId: string;
    organizationId: string;
    filename: string;
    fileSize: number;
    mimeType: string;
    partCount: number;
    blobKey: string;
    storageUploadId: string;
    createdAt: string;
    expiresAt: string;
    /** The created file's description, when one was given. */
    description?: string;
  };
}
export interface MultipartUploadPartReceived {
  type: 'MultipartUploadPartReceived';
  data: { uploadId: string; partNumber: number; etag: string; bytes: number; at: string };
}
export interface MultipartUploadCompleted {
  type: 'MultipartUploadCompleted';
  data: { uploadId: string; fileId: string; at: string };
}
export interface MultipartUploadAborted {
  type: 'MultipartUploadAborted';
  data: { uploadId: string; reason: 'aborted' | 'expired'; at: string };
}
export type MultipartUploadEvent =
  MultipartUploadCreated | MultipartUploadPartReceived | MultipartUploadCompleted | MultipartUploadAborted;
export const MULTIPART_UPLOAD_EVENT_TYPES = [
  'MultipartUploadCreated',
  'MultipartUploadPartReceived',
  'MultipartUploadCompleted',
  'MultipartUploadAborted',
] as const;

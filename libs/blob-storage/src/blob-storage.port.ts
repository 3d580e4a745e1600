import { Readable } from 'stream';

export interface StoredBlob {
  bytes: number;
  sha256: string;
}

export interface PartInfo {
  partNumber: number;
  /** The ETag as the storage returns it, quotes included. */
  etag: string;
  bytes: number;
}

export interface ByteRange {
  start: number;
  /** inclusive */
  end: number;
}

/**
 * Where file content lives. Implementations: local disk (embedded default) and S3. All must pass
 * `testing/blob-storage.contract.ts`. Bodies are streamed: no implementation holds a whole blob in memory.
 */
export interface BlobStorage {
  readonly kind: string;
  /** Stores a stream under `key` atomically (readers see the old blob or the new one, never a part). */
  put(key: string, body: Readable, options?: { contentType?: string; maxBytes?: number }): Promise<StoredBlob>;
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** null when absent. */
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;

  createMultipart(key: string, contentType: string): Promise<string>;
  /**
   * A presigned PUT URL for one part when the storage serves uploads itself (S3); null when Larder
   * must accept the part (local disk), in which case `putPart` stores it.
   */
  presignPart(
    key: string,
    storageUploadId: string,
    partNumber: number,
    expiresInSeconds: number,
  ): Promise<string | null>;
  putPart(
    key: string,
    storageUploadId: string,
    partNumber: number,
    body: Readable,
    maxBytes?: number,
  ): Promise<PartInfo>;
  listParts(key: string, storageUploadId: string): Promise<PartInfo[]>;
  /** Assembles the parts in order into `key`; returns size and SHA-256 of the result. */
  completeMultipart(
    key: string,
    storageUploadId: string,
    parts: Array<{ partNumber: number; etag: string }>,
  ): Promise<StoredBlob>;
  abortMultipart(key: string, storageUploadId: string): Promise<void>;
  /**
   * Removes temporary files a crashed write left behind (untouched for `olderThanMs`); answers how
   * many. Stores that write atomically on the server side (S3) have none and need not implement it.
   */
  sweepTemporary?(olderThanMs: number): Promise<number>;
}

export const BLOB_STORAGE = Symbol('BLOB_STORAGE');

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob ${key} not found`);
  }
}
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`content exceeds ${maxBytes} bytes`);
  }
}

export interface FilesConfig {
  /** Largest file accepted, single request or multipart (413 beyond). */
  maxFileBytes: number;
  /** Lifetime of an unfinished multipart upload; expired ones are aborted and their parts deleted. */
  uploadTtlMs: number;
  /** Lifetime of a presigned part URL. */
  partUrlTtlSeconds: number;
  /** HMAC key for the part URLs Larder serves itself (local disk). */
  signingSecret: string;
  /** Base URL clients reach Larder on; null = taken from each request's Host header. */
  publicUrl: string | null;
  /** Whether this process sweeps expired uploads. */
  sweepExpiredUploads: boolean;
}
export const FILES_CONFIG = Symbol('FILES_CONFIG');

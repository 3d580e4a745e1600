import type { Readable } from 'stream';

/**
 * Ports between the files and stores contexts (contexts never import each other's code):
 * the stores context uploads through FILE_UPLOADER; the files context asks FILE_REFERENCES to
 * remove a file from every store before the file itself goes.
 */
export interface UploadedFileInfo {
  id: string;
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  blobKey: string;
  version: number;
}
export interface FileUploader {
  upload(organizationId: string, actor: string, filename: string, mimeType: string | undefined, body: Readable): Promise<UploadedFileInfo>;
  remove(organizationId: string, actor: string, fileId: string): Promise<unknown>;
  /**
   * The file as its own event stream has it (never a read model that may lag), with the actor (API
   * key) who wrote its current content; null when it does not exist in the organization.
   */
  find(organizationId: string, fileId: string): Promise<(UploadedFileInfo & { contentAuthor: string | null }) | null>;
}
export const FILE_UPLOADER = Symbol('FILE_UPLOADER');

export interface FileReferences {
  /** Removes the file from every store holding it (chunks and stats first); resolves once read models show it. */
  removeEverywhere(organizationId: string, fileId: string, actor: string): Promise<void>;
}
export const FILE_REFERENCES = Symbol('FILE_REFERENCES');

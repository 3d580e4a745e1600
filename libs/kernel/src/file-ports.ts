import type { Readable } from 'stream';
import type { ScopeEntry } from './principal';

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
  /**
   * Stores `body` as a new file. With `after`, the upload waits for it once the content is stored and
   * before the file is recorded: its rejection refuses the upload (the stored content is removed).
   */
  upload(
    organizationId: string,
    actor: string,
    filename: string,
    mimeType: string | undefined,
    body: Readable,
    after?: Promise<unknown>,
  ): Promise<UploadedFileInfo>;
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

/** Who a store-file answer is for: the key's scope decides whether it carries a `content_url`, `baseUrl` where that content is served. */
export interface StoreFileViewer {
  scope: ScopeEntry[] | null;
  /** The base URL the caller used (a configured public URL wins). */
  baseUrl: string;
}
/**
 * The stores context answers store files as `StoreFile` objects for other contexts: file
 * search (search context) returns each file it ranks in exactly that shape.
 */
export interface StoreFileViews {
  /**
   * The `StoreFile` answers of these store files of the organization for this viewer, keyed
   * `storeFileKey(storeId, fileId)`; a file the read model does not (or no longer) hold is absent.
   */
  view(
    organizationId: string,
    files: Array<{ storeId: string; fileId: string }>,
    viewer: StoreFileViewer,
  ): Promise<Map<string, Record<string, unknown>>>;
}
export const STORE_FILE_VIEWS = Symbol('STORE_FILE_VIEWS');
export const storeFileKey = (storeId: string, fileId: string) => `${storeId}:${fileId}`;

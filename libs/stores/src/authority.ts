import { Inject, Injectable } from '@nestjs/common';
import { FILE_UPLOADER, FileUploader, ForbiddenError, ScopeEntry, scopeAllows } from '@larder/kernel';

/**
 * What a store route touches beyond the store in its URL, which the API-key guard has checked
 * already: the source of a copy, the files a write attaches, and who may see content.
 */

/** Whether a key may read a store (its content, its description and metadata). */
export function mayReadStore(scope: ScopeEntry[] | null, storeId: string): boolean {
  return scopeAllows(scope, { method: 'read', resourceType: 'store' }, storeId);
}

/** Copy needs `read` on the source (besides `create`, which the guard checks). */
export function assertMayReadStore(scope: ScopeEntry[] | null, storeId: string): void {
  if (!mayReadStore(scope, storeId))
    throw new ForbiddenError(`This API key's scope does not allow read on store ${storeId}.`);
}

/**
 * Attaching a file to a store needs `read` on that file, or else a store-scoped key could attach an
 * organization file it cannot read and read it through the store. A scoped key may attach a file
 * when one of its entries grants `read` on `resource_type` null or `file` with `resource_id` null or
 * the file's id, or when the key itself wrote the file's current content (it holds those bytes
 * already: the official client's `stores.files.upload` uploads through `POST /v1/files`, then attaches).
 */
@Injectable()
export class AttachAuthority {
  constructor(@Inject(FILE_UPLOADER) private readonly files: FileUploader) {}

  async assertMayAttach(
    scope: ScopeEntry[] | null,
    actor: string,
    organizationId: string,
    fileId: string,
  ): Promise<void> {
    if (scopeAllows(scope, { method: 'read', resourceType: 'file' }, fileId)) return;
    // the files context answers from the file's own stream who wrote its current content
    const file = await this.files.find(organizationId, fileId);
    if (file && file.contentAuthor !== null && file.contentAuthor === actor) return;
    throw new ForbiddenError(
      `This API key's scope does not allow read on file ${fileId}, so it cannot attach it to a store.`,
    );
  }
}

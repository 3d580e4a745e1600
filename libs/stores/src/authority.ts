import { ForbiddenError, ScopeEntry, scopeAllows } from '@larder/kernel';

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
  if (!mayReadStore(scope, storeId)) throw new ForbiddenError(`This API key's scope does not allow read on store ${storeId}.`);
}

/**
 * Attaching a file needs `read` on that file: a scope entry granting `read` on `resource_type`
 * null or `file`, with `resource_id` null or the file's id. Otherwise a store-scoped key could
 * attach an organization file it cannot read and read it through the store.
 */
export function assertMayAttachFile(scope: ScopeEntry[] | null, fileId: string): void {
  if (!scopeAllows(scope, { method: 'read', resourceType: 'file' }, fileId)) {
    throw new ForbiddenError(`This API key's scope does not allow read on file ${fileId}, so it cannot attach it to a store.`);
  }
}

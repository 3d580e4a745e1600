/**
 * Blob keys that live in a customer's bucket rather than in platform storage: `buckets/<bucket id>/<key>`.
 * Events and read models carry these keys like any other, so the code that reads and writes blobs
 * (ingestion, the chunk index, downloads) stays the same; `RoutingBlobStorage` sends each key to the
 * storage it names. Platform keys never start with `buckets/` (they start with `files/` or `artifacts/`).
 */
export const BUCKET_KEY_PREFIX = 'buckets/';

export function bucketBlobKey(bucketId: string, key: string): string {
  if (!bucketId || bucketId.includes('/')) throw new Error(`invalid bucket id: ${bucketId}`);
  return `${BUCKET_KEY_PREFIX}${bucketId}/${key}`;
}

/** The bucket and the key inside it (below the bucket's own prefix), or null for a platform key. */
export function parseBucketBlobKey(key: string): { bucketId: string; key: string } | null {
  if (!key.startsWith(BUCKET_KEY_PREFIX)) return null;
  const rest = key.slice(BUCKET_KEY_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return null;
  return { bucketId: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

/**
 * The layout of a store's objects in its bucket (below the bucket's prefix):
 * `stores/<store>/files/<file>/g<generation>/<name>`. Each generation of a store file (a re-add or a
 * re-ingestion) writes below its own folder, so removing an old generation never touches the objects
 * a newer one is writing.
 */
export const storeObjectsPrefix = (bucketId: string, storeId: string) => bucketBlobKey(bucketId, `stores/${storeId}/`);
export const storeFileObjectsPrefix = (bucketId: string, storeId: string, fileId: string) =>
  bucketBlobKey(bucketId, `stores/${storeId}/files/${fileId}/`);
export const storeFileObjectKey = (
  bucketId: string,
  storeId: string,
  fileId: string,
  generation: number,
  name: string,
) => bucketBlobKey(bucketId, `stores/${storeId}/files/${fileId}/g${generation}/${name}`);

/** The generation folder a store file object key is in (null when the key is not one). */
export function generationOfObjectKey(key: string): number | null {
  const m = /\/files\/[^/]+\/g(\d+)\//.exec(key);
  return m ? Number(m[1]) : null;
}

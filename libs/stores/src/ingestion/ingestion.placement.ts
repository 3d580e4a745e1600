/** Where one ingestion attempt keeps its objects: platform storage or the store's bucket. */
import { storeFileObjectKey } from '@larder/blob-storage';
import { chunkingKey, PARSER_VERSION } from '@larder/ingestion';
import { chunksArtifactKey, vectorsArtifactKey } from '@larder/chunk-index';
import { StoreFileRow } from '@larder/projections/stores/store-files.reader';

/**
 * Where one ingestion attempt keeps its objects. Platform storage: the file's own content and the
 * organization's content-addressed artifacts. A store in a bucket: a copy of the content and the
 * artifacts below the store file's generation folder in that bucket (`stores/<store>/files/<file>/g<n>/`).
 */
export function placementOf(row: StoreFileRow, model: string) {
  const chunks = chunksArtifactKey(
    row.organizationId,
    row.sha256,
    chunkingKey(row.parsingStrategy, row.chunking),
    PARSER_VERSION,
  );
  const bucketId = row.bucketId ?? null;
  // the artifact's own name (`chunks/<hash>.json`, `vectors/<hash>.f32`) below the generation folder
  const inBucket = (platformKey: string) =>
    storeFileObjectKey(bucketId!, row.storeId, row.fileId, row.generation, platformKey.split('/').slice(-2).join('/'));
  return {
    bucketId,
    contentKey: bucketId
      ? storeFileObjectKey(bucketId, row.storeId, row.fileId, row.generation, 'content')
      : row.blobKey,
    chunksKey: bucketId ? inBucket(chunks) : chunks,
    vectorsKey: (inputs: string[]) =>
      bucketId
        ? inBucket(vectorsArtifactKey(row.organizationId, model, inputs))
        : vectorsArtifactKey(row.organizationId, model, inputs),
  };
}

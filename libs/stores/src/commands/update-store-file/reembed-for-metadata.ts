import { Decided } from '@larder/event-store';
import { embedsMetadata } from '@larder/ingestion/embedding-context';
import { StoreFileState } from '../../store-file.aggregate';
import { StoreFilesWriter } from '../../store-files.writer';

/**
 * A store whose contextualization embeds file metadata (`with_metadata`, or `true`) embeds a file
 * again when its metadata changes: the file gets a new generation and goes through ingestion (its
 * chunks artifact is reused; only the vectors are computed anew), billed like any ingestion.
 */
export function reembedForMetadata(
  writer: StoreFilesWriter,
  organizationId: string,
  actor: string,
  f: { storeId: string; fileId: string; filename: string; externalId: string | null; contextualization: unknown },
  before: unknown,
  after: unknown,
): Promise<Decided<StoreFileState> | null> {
  if (!embedsMetadata(f.contextualization) || JSON.stringify(before ?? null) === JSON.stringify(after ?? null))
    return Promise.resolve(null);
  return writer.decide(
    {
      type: 'ReingestStoreFile',
      storeId: f.storeId,
      organizationId,
      fileId: f.fileId,
      filename: f.filename,
      externalId: f.externalId,
      metadata: after ?? null,
      billable: true,
    },
    actor,
  );
}

/** Replaces a store file's metadata (re-embedding it where the store embeds metadata) and answers the file as stored. */
export async function updateStoreFileMetadata(
  writer: StoreFilesWriter,
  organizationId: string,
  actor: string,
  storeIdentifier: string,
  fileIdentifier: string,
  metadata: unknown,
) {
  const f = await writer.get(organizationId, storeIdentifier, fileIdentifier, { writable: true });
  const r = await writer.decide(
    {
      type: 'UpdateStoreFileMetadata',
      storeId: f.storeId,
      organizationId,
      fileId: f.fileId,
      metadata: metadata ?? null,
    },
    actor,
  );
  const again = await reembedForMetadata(writer, organizationId, actor, f, f.metadata, metadata ?? null);
  return writer.answer(organizationId, f.storeId, f.fileId, again ?? r, f);
}

import type { StoreRow } from '@larder/projections/stores/stores.reader';
import type { StoreFileRow } from '@larder/projections/stores/store-files.reader';
import { IndexedChunk, toChunkResponse } from '@larder/chunk-index';

/** `Store`: the store object every store route answers. */
export function toStoreResponse(r: StoreRow) {
  // a chunk size chosen through the OpenAI API is not part of Mixedbread's store config
  const { chunking: _chunking, ...config } = r.config;
  void _chunking;
  const expiresAt = r.expiresAfter
    ? new Date(r.lastActiveAt.getTime() + r.expiresAfter.days * 86_400_000).toISOString()
    : null;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_public: r.isPublic,
    license: r.license,
    metadata: r.metadata,
    config,
    bucket_id: r.bucketId ?? null,
    file_counts: r.fileCounts,
    expires_after: r.expiresAfter,
    status: r.status,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    last_active_at: r.lastActiveAt.toISOString(),
    usage_bytes: r.usageBytes,
    usage_tokens: r.usageTokens,
    expires_at: expiresAt,
    copy_state: r.copyState,
    object: 'store' as const,
  };
}
export type StoreResponse = ReturnType<typeof toStoreResponse>;

/** `StoreFile`: a file of a store with its ingestion status. `content_url` is null for a caller that may not read the store's content (see `ContentUrls`). */
export function toStoreFileResponse(r: StoreFileRow, contentUrl: string | null, chunks?: IndexedChunk[]) {
  return {
    id: r.fileId,
    filename: r.filename,
    metadata: r.metadata,
    external_id: r.externalId,
    status: r.status,
    last_error: r.lastError,
    store_id: r.storeId,
    created_at: r.createdAt.toISOString(),
    version: r.fileVersion,
    usage_bytes: r.bytes,
    usage_tokens: r.usageTokens,
    config: { parsing_strategy: r.parsingStrategy, ...(r.chunking ? { max_chunk_size: r.chunking.maxTokens } : {}) },
    object: 'store.file' as const,
    ...(chunks ? { chunks: chunks.map((ch) => toChunkResponse(ch, contentUrl)) } : {}),
    content_url: contentUrl,
  };
}
export type StoreFileResponse = ReturnType<typeof toStoreFileResponse>;

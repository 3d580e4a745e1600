import { metadataAsMap } from '@larder/kernel';
import { CHUNKING } from '@larder/ingestion';
import type { StoreRow } from '@larder/projections/stores/stores.reader';
import type { StoreFileRow } from '@larder/projections/stores/store-files.reader';
import type { StoreFileBatchRow } from '@larder/projections/stores/store-file-batches.reader';

/**
 * OpenAI's wire shapes of the same stores, store files and file batches the Mixedbread routes serve
 * (`/v1/vector_stores/**`): unix-second timestamps, OpenAI's four file statuses, `attributes` for a
 * store file's metadata, and the free-text `name` (the store's display name, else its identifier).
 */

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** How long a poller (the openai client's `…AndPoll` helpers) waits before asking again: the `openai-poll-after-ms` header. */
export const OPENAI_POLL_AFTER_MS = 250;

/** Larder's five store-file statuses as OpenAI's four: a file waiting for a worker is `in_progress`. */
export type OpenAiFileStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';
export const openAiStatus = (s: StoreFileRow['status']): OpenAiFileStatus => (s === 'pending' ? 'in_progress' : s);
/** The Larder statuses behind one of OpenAI's (a listing's `filter`). */
export const larderStatuses = (s: OpenAiFileStatus): string[] =>
  s === 'in_progress' ? ['pending', 'in_progress'] : [s];

/** `VectorStore`. */
export function toVectorStore(r: StoreRow) {
  const c = r.fileCounts;
  const inProgress = c.pending + c.in_progress;
  const status =
    r.status === 'expired'
      ? 'expired'
      : inProgress > 0 || r.copyState?.status === 'in_progress'
        ? 'in_progress'
        : 'completed';
  return {
    id: r.id,
    object: 'vector_store' as const,
    created_at: unix(r.createdAt),
    name: r.displayName ?? r.name,
    description: r.description,
    usage_bytes: r.usageBytes,
    file_counts: {
      in_progress: inProgress,
      completed: c.completed,
      failed: c.failed,
      cancelled: c.cancelled,
      total: c.total,
    },
    status,
    expires_after: r.expiresAfter,
    expires_at: r.expiresAfter ? unix(r.lastActiveAt) + r.expiresAfter.days * 86_400 : null,
    last_active_at: unix(r.lastActiveAt),
    metadata: metadataAsMap(r.metadata),
  };
}
export type VectorStoreResponse = ReturnType<typeof toVectorStore>;

/** Larder's ingestion error codes as OpenAI's three. */
function lastError(
  e: StoreFileRow['lastError'],
): { code: 'server_error' | 'unsupported_file' | 'invalid_file'; message: string } | null {
  if (!e) return null;
  const code = e.code.startsWith('unsupported_file')
    ? 'unsupported_file'
    : e.code === 'parse_error' || e.code === 'file_missing'
      ? 'invalid_file'
      : 'server_error';
  return { code, message: e.message };
}

/** The chunk size a file is (or will be) cut with, as OpenAI's static strategy. */
export function chunkingStrategyOf(f: Pick<StoreFileRow, 'chunking' | 'parsingStrategy'>) {
  const sizes = f.chunking ?? CHUNKING[f.parsingStrategy];
  return {
    type: 'static' as const,
    static: { max_chunk_size_tokens: sizes.maxTokens, chunk_overlap_tokens: sizes.overlapTokens },
  };
}

/** `VectorStoreFile`: the store file, its id the file's id. */
export function toVectorStoreFile(f: StoreFileRow) {
  return {
    id: f.fileId,
    object: 'vector_store.file' as const,
    usage_bytes: f.bytes,
    created_at: unix(f.createdAt),
    vector_store_id: f.storeId,
    status: openAiStatus(f.status),
    last_error: lastError(f.lastError),
    attributes: metadataAsMap(f.metadata),
    chunking_strategy: chunkingStrategyOf(f),
  };
}
export type VectorStoreFileResponse = ReturnType<typeof toVectorStoreFile>;

/**
 * `VectorStoreFileBatch`. Its status: `in_progress` while any of its files is; then `cancelled` if
 * it was cancelled, `failed` if every file failed, else `completed` (as OpenAI: a completed batch may
 * count failed files).
 */
export function toVectorStoreFileBatch(b: StoreFileBatchRow) {
  const c = b.fileCounts;
  const status =
    c.in_progress > 0
      ? 'in_progress'
      : b.cancelledAt
        ? 'cancelled'
        : c.total > 0 && c.failed === c.total
          ? 'failed'
          : 'completed';
  return {
    id: b.id,
    object: 'vector_store.files_batch' as const,
    created_at: unix(b.createdAt),
    vector_store_id: b.storeId,
    status,
    file_counts: c,
  };
}
export type VectorStoreFileBatchResponse = ReturnType<typeof toVectorStoreFileBatch>;

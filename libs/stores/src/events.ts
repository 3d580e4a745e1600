/** The stores context's events: the only thing other contexts may import from it. */

/** A chunk size chosen by the caller (OpenAI's static `chunking_strategy`), in Larder's token estimate. */
export interface ChunkingData {
  maxTokens: number;
  overlapTokens: number;
}

export interface StoreConfigData {
  contextualization: boolean | { with_metadata?: boolean | string[]; with_file_context?: boolean };
  save_content: boolean;
  lsf?: Record<string, unknown> | null;
  /** The chunk size files added to the store get unless they name their own (absent: the parsing strategy's). */
  chunking?: ChunkingData | null;
}
export interface ExpiresAfterData {
  anchor: 'last_active_at';
  days: number;
}

export interface StoreCreated {
  type: 'StoreCreated';
  data: {
    storeId: string;
    organizationId: string;
    name: string;
    /** A free-text, non-unique name (OpenAI's vector store `name`); `name` stays the unique identifier. Absent in older events. */
    displayName?: string | null;
    description: string | null;
    isPublic: boolean;
    license: string | null;
    metadata: unknown;
    config: StoreConfigData;
    expiresAfter: ExpiresAfterData | null;
    /** The customer bucket that keeps the store's file content and chunk artifacts (absent: platform storage). */
    bucketId?: string;
    at: string;
  };
}
export interface StoreUpdated {
  type: 'StoreUpdated';
  data: {
    storeId: string;
    name?: string;
    displayName?: string | null;
    description?: string | null;
    isPublic?: boolean;
    license?: string | null;
    metadata?: unknown;
    expiresAfter?: ExpiresAfterData | null;
    at: string;
  };
}
/** Inactivity expiry reached (`expires_after`). */
export interface StoreExpired {
  type: 'StoreExpired';
  data: { storeId: string; at: string };
}
export interface StoreDeleted {
  type: 'StoreDeleted';
  /** `bucketId`: the store's objects in that bucket are removed (bucket-objects reactor). */
  data: { storeId: string; organizationId: string; name: string; bucketId?: string; at: string };
}
/** A copy began: recorded on both sides (`role`). */
export interface StoreCopyStarted {
  type: 'StoreCopyStarted';
  data: { storeId: string; role: 'source' | 'target'; peerStoreId: string; at: string };
}
export interface StoreCopyFinished {
  type: 'StoreCopyFinished';
  data: { storeId: string; role: 'source' | 'target'; peerStoreId: string; error: string | null; at: string };
}
export type StoreEvent =
  StoreCreated | StoreUpdated | StoreExpired | StoreDeleted | StoreCopyStarted | StoreCopyFinished;
export const STORE_EVENT_TYPES = [
  'StoreCreated',
  'StoreUpdated',
  'StoreExpired',
  'StoreDeleted',
  'StoreCopyStarted',
  'StoreCopyFinished',
] as const;

/** Per-organization uniqueness of store names: one claim stream per (organization, name). */
export interface StoreNameClaimed {
  type: 'StoreNameClaimed';
  data: { organizationId: string; name: string; storeId: string; at: string };
}
export interface StoreNameReleased {
  type: 'StoreNameReleased';
  data: { organizationId: string; name: string; storeId: string; at: string };
}
export type StoreNameEvent = StoreNameClaimed | StoreNameReleased;

/**
 * Per-store uniqueness of `external_id`: one claim stream per (store, external id), held by one file.
 * A claim that takes over from another file names it (`previousFileId`), which is then removed.
 * `fileRevision`: the claimant's store-file stream revision when it claimed (-1: no stream yet); its
 * add is the first `StoreFileAdded` after it. `overwrite`: whether the claimant asked to replace the
 * holder (both absent in older events).
 */
export interface StoreExternalIdClaimed {
  type: 'StoreExternalIdClaimed';
  data: {
    organizationId: string;
    storeId: string;
    externalId: string;
    fileId: string;
    previousFileId: string | null;
    fileRevision?: number;
    overwrite?: boolean;
    at: string;
  };
}
/** A claimant whose add failed gives the id back to the file that held it before (`restoredFileId`). */
export interface StoreExternalIdReleased {
  type: 'StoreExternalIdReleased';
  data: {
    organizationId: string;
    storeId: string;
    externalId: string;
    fileId: string;
    restoredFileId: string | null;
    at: string;
  };
}
export type StoreExternalIdEvent = StoreExternalIdClaimed | StoreExternalIdReleased;

export type ParsingStrategy = 'fast' | 'high_quality';

/** The file content a store file was added with (a snapshot: later file replacements re-add it). */
export interface StoreFileContentData {
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  blobKey: string;
  fileVersion: number;
}

export interface StoreFileAdded {
  type: 'StoreFileAdded';
  data: StoreFileContentData & {
    storeId: string;
    organizationId: string;
    fileId: string;
    /** Incremented each time the file is (re-)added to the store; ingestion events carry it. */
    generation: number;
    metadata: unknown;
    externalId: string | null;
    parsingStrategy: ParsingStrategy;
    /**
     * A chunk size overriding the parsing strategy's: Mixedbread's `config.max_chunk_size` (with the
     * strategy's share of overlap) or OpenAI's static `chunking_strategy`; absent in older events (the strategy's).
     */
    chunking?: ChunkingData | null;
    contextualization: StoreConfigData['contextualization'];
    /** The store's bucket (absent: platform storage): ingestion writes the content copy and artifacts there. */
    bucketId?: string;
    /** Set when the chunks come from another store (copy): nothing is parsed or embedded. */
    copiedFrom?: {
      storeId: string;
      chunksKey: string;
      vectorsKey: string | null;
      model: string | null;
      chunkCount: number;
      usageTokens: number;
    } | null;
    at: string;
  };
}
export interface StoreFileMetadataUpdated {
  type: 'StoreFileMetadataUpdated';
  data: { storeId: string; fileId: string; metadata: unknown; at: string };
}
/** A worker holds the file until `leaseExpiresAt`; after that another may take it over. */
/** The lease holder is still working: its lease is extended (short leases, renewed while work runs). */
export interface StoreFileIngestionLeaseRenewed {
  type: 'StoreFileIngestionLeaseRenewed';
  data: { storeId: string; fileId: string; generation: number; workerId: string; leaseExpiresAt: string; at: string };
}
export interface StoreFileIngestionStarted {
  type: 'StoreFileIngestionStarted';
  data: {
    storeId: string;
    fileId: string;
    generation: number;
    attempt: number;
    workerId: string;
    leaseExpiresAt: string;
    at: string;
  };
}
/** Parsed and chunked: the chunks (an artifact in blob storage) are searchable lexically from here on. */
export interface StoreFileParsed {
  type: 'StoreFileParsed';
  data: {
    storeId: string;
    fileId: string;
    generation: number;
    chunksKey: string;
    chunkCount: number;
    usageTokens: number;
    parseMs: number;
    at: string;
  };
}
/** Embedded: the vectors artifact (content hash + model) is indexed; the file is `completed`. */
export interface StoreFileIngested {
  type: 'StoreFileIngested';
  data: {
    storeId: string;
    fileId: string;
    generation: number;
    filename: string;
    chunksKey: string;
    vectorsKey: string | null;
    model: string | null;
    dimensions: number;
    chunkCount: number;
    usageTokens: number;
    mode: ParsingStrategy;
    contextualization: boolean;
    queueMs: number;
    ingestionMs: number;
    totalMs: number;
    at: string;
  };
}
/** An administrator asked for the file to be ingested again (a new generation; artifacts are reused when unchanged). */
export interface StoreFileReingestionRequested {
  type: 'StoreFileReingestionRequested';
  data: {
    storeId: string;
    fileId: string;
    organizationId: string;
    generation: number;
    filename: string;
    externalId: string | null;
    metadata: unknown;
    billable: boolean;
    at: string;
  };
}
export interface StoreFileIngestionFailed {
  type: 'StoreFileIngestionFailed';
  data: {
    storeId: string;
    fileId: string;
    generation: number;
    attempt: number;
    error: { message: string; code: string };
    retryAt: string | null;
    at: string;
  };
}
/**
 * Ingestion was cancelled (a file batch was cancelled) before it finished: the file stays in the store
 * as `cancelled`, its chunks leave the index, and the worker's later results for it are refused.
 */
export interface StoreFileIngestionCancelled {
  type: 'StoreFileIngestionCancelled';
  data: { storeId: string; fileId: string; organizationId: string; generation: number; at: string };
}
export interface StoreFileRemoved {
  type: 'StoreFileRemoved';
  data: {
    storeId: string;
    fileId: string;
    organizationId: string;
    reason: 'deleted' | 'file_deleted' | 'store_deleted' | 'overwritten';
    /** In a bucket store: the bucket and the generation removed (its objects up to that generation are deleted). */
    bucketId?: string;
    generation?: number;
    at: string;
  };
}
export type StoreFileEvent =
  | StoreFileAdded
  | StoreFileMetadataUpdated
  | StoreFileIngestionStarted
  | StoreFileIngestionLeaseRenewed
  | StoreFileParsed
  | StoreFileIngested
  | StoreFileIngestionFailed
  | StoreFileReingestionRequested
  | StoreFileIngestionCancelled
  | StoreFileRemoved;
export const STORE_FILE_EVENT_TYPES = [
  'StoreFileAdded',
  'StoreFileMetadataUpdated',
  'StoreFileIngestionStarted',
  'StoreFileIngestionLeaseRenewed',
  'StoreFileParsed',
  'StoreFileIngested',
  'StoreFileIngestionFailed',
  'StoreFileReingestionRequested',
  'StoreFileIngestionCancelled',
  'StoreFileRemoved',
] as const;

/** The files one batch attaches (OpenAI's vector store file batches): one stream per batch. */
export interface StoreFileBatchCreated {
  type: 'StoreFileBatchCreated';
  data: { batchId: string; storeId: string; organizationId: string; fileIds: string[]; at: string };
}
/** The batch was cancelled: its files still waiting or in ingestion were cancelled with it. */
export interface StoreFileBatchCancelled {
  type: 'StoreFileBatchCancelled';
  data: { batchId: string; storeId: string; organizationId: string; at: string };
}
export type StoreFileBatchEvent = StoreFileBatchCreated | StoreFileBatchCancelled;
export const STORE_FILE_BATCH_EVENT_TYPES = ['StoreFileBatchCreated', 'StoreFileBatchCancelled'] as const;

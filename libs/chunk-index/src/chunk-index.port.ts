import { FilterNode, Position } from '@larder/kernel';

/** A chunk's type follows from its MIME type: an image's chunks are `image_url` chunks, a recording's `audio_url` or `video_url`. */
export type IndexedChunkType = 'text' | 'image_url' | 'audio_url' | 'video_url';
export const chunkTypeOf = (mimeType: string): IndexedChunkType =>
  mimeType.startsWith('image/')
    ? 'image_url'
    : mimeType.startsWith('audio/')
      ? 'audio_url'
      : mimeType.startsWith('video/')
        ? 'video_url'
        : 'text';

/** One chunk as stored in the index (`text`; `image_url` whose `text` is the OCR text; `audio_url`, `video_url` whose `text` is the transcript). */
export interface IndexedChunk {
  storeId: string;
  fileId: string;
  chunkIndex: number;
  type: IndexedChunkType;
  /** The chunk's text; for an `image_url` chunk the OCR text (answered as `ocr_text`), for audio and video the transcript (`transcription`). */
  text: string;
  offset: number;
  mimeType: string;
  generatedMetadata: Record<string, unknown> | null;
  /** Embedding model of the chunk's vector; null until vectors are indexed. */
  model: string | null;
}

/** What the index keeps about a store file, for filters and results. */
export interface IndexedFile {
  storeId: string;
  fileId: string;
  organizationId: string;
  filename: string;
  externalId: string | null;
  metadata: unknown;
  generation: number;
}

export type ChunkIndexOp =
  /** Adds or re-adds a file (a new generation drops the previous generation's chunks). */
  | { op: 'putFile'; file: IndexedFile }
  /** Replaces the file's chunks; ignored unless the file is present at this generation. */
  | {
      op: 'setChunks';
      storeId: string;
      fileId: string;
      generation: number;
      chunks: Omit<IndexedChunk, 'storeId' | 'fileId' | 'model'>[];
    }
  /** Attaches one vector per chunk (in chunk order). */
  | { op: 'setVectors'; storeId: string; fileId: string; generation: number; model: string; vectors: Float32Array[] }
  | { op: 'setMetadata'; storeId: string; fileId: string; metadata: unknown }
  | { op: 'deleteFile'; storeId: string; fileId: string }
  | { op: 'deleteStore'; storeId: string };

export interface ScoredChunk extends IndexedChunk {
  score: number;
  filename: string;
  externalId: string | null;
  metadata: unknown;
}

/**
 * A search hit before its chunk is read: the chunk's place and its score. What fusion and ranking
 * need; `hydrate` reads the chunks (text, metadata, the file's fields) of the few hits an answer keeps.
 */
export interface ChunkHit {
  storeId: string;
  fileId: string;
  chunkIndex: number;
  score: number;
  /** The adapter's own handle of the chunk where it has one (the embedded index's row id): `hydrate` reads by it, and still checks the place. Opaque to callers. */
  ref?: number;
}

export interface ChunkQuery {
  storeIds: string[];
  topK: number;
  /** Lexical query (BM25). */
  text?: string | null;
  /** Dense query vector (cosine). */
  vector?: Float32Array | null;
  /** Dense search considers only chunks embedded by this model (vectors of other models are not comparable). */
  model?: string | null;
  filter?: FilterNode | null;
  fileIds?: { include?: string[]; exclude?: string[] } | null;
}

/** The last chunk of a scan's previous page, where the next page continues. */
export interface ScanCursor {
  fileId: string;
  chunkIndex: number;
}

export interface ScanQuery {
  storeId: string;
  fileIds?: { include?: string[]; exclude?: string[] } | null;
  /**
   * Literal substrings (3+ characters) that every wanted chunk contains, matched case-insensitively:
   * a pre-filter the adapter serves from an n-gram index. It may return chunks that do not contain
   * them (the caller verifies); it never leaves out one that does.
   */
  contains?: string[];
  after?: ScanCursor | null;
  limit: number;
}

/** One cache of a chunk index: what it holds now (bytes and/or entries) and its bound in bytes, where it has one. */
export interface ChunkIndexCacheStats {
  cache: string;
  bytes: number | null;
  entries: number | null;
  capacityBytes: number | null;
}

export interface IndexCheckpoint {
  version: number;
  position: Position;
}

/**
 * The chunk index: dense vectors plus text, per store file. Written only by the chunk-index
 * projection (ops and its checkpoint together), read by store-file reads and search. Adapters:
 * embedded/ (SQLite + FTS5, in-process) and elasticsearch/; both pass testing/chunk-index.contract.ts.
 */
export interface ChunkIndex {
  readonly kind: string;
  setup(): Promise<void>;
  /**
   * Starts now what the first query would otherwise start (the embedded index's read worker); optional.
   * `deferBackground`: its background work (the lexical preload) waits for startBackground.
   */
  warmUp?(options?: { deferBackground?: boolean }): void;
  /** Begins the background work that warmUp deferred (a server calls it once it listens); optional. */
  startBackground?(): void;
  readCheckpoint(projection: string): Promise<IndexCheckpoint | null>;
  /** Applies ops in order and records the checkpoint: atomically, or idempotently so a repeat is harmless. */
  write(ops: ChunkIndexOp[], checkpoint: { projection: string } & IndexCheckpoint): Promise<void>;
  /** Drops every chunk and file (replay). */
  reset(projection: string, version: number): Promise<void>;
  getChunks(storeId: string, fileId: string, indices?: number[] | null): Promise<IndexedChunk[]>;
  /**
   * Best chunks by BM25 over text, ties by position, as hits: the chunks' places and scores (the filter
   * applies), not their texts or their files' fields; `hydrate` reads those of the hits an answer keeps.
   */
  searchLexical(q: ChunkQuery): Promise<ChunkHit[]>;
  /** Best chunks by cosine similarity to `vector` (score = cosine), as hits, likewise. */
  searchDense(q: ChunkQuery): Promise<ChunkHit[]>;
  /** The chunks of `hits` as the searches return them, in the hits' order with the hits' scores; a hit whose chunk is gone (deleted since) is left out. */
  hydrate(hits: ChunkHit[]): Promise<ScoredChunk[]>;
  /**
   * Chunks of one store in the adapter's stable index order (a file's chunks in chunk order) after
   * `after` (the last chunk of the previous page), pre-filtered by `contains`; score 0.
   */
  scanChunks(q: ScanQuery): Promise<ScoredChunk[]>;
  /** Files of the stores (for facets), at most `limit`, in (store, file id) order. */
  listFiles(storeIds: string[], limit: number): Promise<IndexedFile[]>;
  count(storeId?: string): Promise<{ files: number; chunks: number; vectors: number }>;
  /** The sizes of the adapter's caches in this process (for metrics), read from counters; optional. */
  cacheStats?(): Promise<ChunkIndexCacheStats[]>;
  close(): Promise<void>;
}

export const CHUNK_INDEX = Symbol('CHUNK_INDEX');

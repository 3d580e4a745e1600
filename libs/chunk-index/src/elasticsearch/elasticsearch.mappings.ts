import { chunkTypeOf, IndexedChunk } from '../chunk-index.port';

/** The Elasticsearch chunk index's documents, their ids and the mappings of its three indices. */

/** The id of a file's document in the files index. */
export const fileId = (storeId: string, fid: string) => `${storeId}:${fid}`;
/** The id of a chunk's document in the chunks index. */
export const chunkId = (storeId: string, fid: string, i: number) => `${storeId}:${fid}:${i}`;

export interface FileDoc {
  store_id: string;
  file_id: string;
  organization_id: string;
  filename: string;
  external_id: string | null;
  metadata: unknown;
  generation: number;
  chunk_count: number;
}

export interface ChunkDoc {
  store_id: string;
  file_id: string;
  generation: number;
  chunk_index: number;
  text: string;
  offset: number;
  mime_type: string;
  generated_metadata: Record<string, unknown> | null;
  model: string | null;
  [vector: `vector_${number}`]: number[] | undefined;
}

/** The `files` index: a file's metadata and generation (metadata kept, not indexed). */
export const FILES_INDEX = {
  mappings: {
    dynamic: 'strict',
    properties: {
      store_id: { type: 'keyword' },
      file_id: { type: 'keyword' },
      organization_id: { type: 'keyword' },
      filename: { type: 'keyword' },
      external_id: { type: 'keyword' },
      metadata: { type: 'object', enabled: false },
      generation: { type: 'integer' },
      chunk_count: { type: 'integer' },
    },
  },
};

/** The `chunks` index: text with the english analyzer (BM25) and a `wildcard` sub-field; one cosine HNSW `vector_<dims>` field per dimension. */
export const CHUNKS_INDEX = {
  mappings: {
    // known fields below; only `vector_<dims>` fields are ever added, through the template
    dynamic_templates: [
      {
        vectors: {
          match: 'vector_*',
          mapping: { type: 'dense_vector', index: true, similarity: 'cosine', index_options: { type: 'hnsw' } },
        },
      },
    ],
    properties: {
      store_id: { type: 'keyword' },
      file_id: { type: 'keyword' },
      generation: { type: 'integer' },
      chunk_index: { type: 'integer' },
      text: { type: 'text', analyzer: 'english', fields: { raw: { type: 'wildcard' } } },
      offset: { type: 'integer' },
      mime_type: { type: 'keyword' },
      generated_metadata: { type: 'object', enabled: false },
      model: { type: 'keyword' },
    },
  },
};

/** The `checkpoints` index: a projection's version and position. */
export const CHECKPOINTS_INDEX = {
  mappings: { properties: { version: { type: 'integer' }, commit: { type: 'keyword' }, prepare: { type: 'keyword' } } },
};

/** A chunk document as the port's chunk. */
export function toChunk(c: ChunkDoc): IndexedChunk {
  return {
    storeId: c.store_id,
    fileId: c.file_id,
    chunkIndex: c.chunk_index,
    type: chunkTypeOf(c.mime_type),
    text: c.text,
    offset: c.offset,
    mimeType: c.mime_type,
    generatedMetadata: c.generated_metadata ?? null,
    model: c.model ?? null,
  };
}

import { chunkTypeOf, IndexedChunk } from '../chunk-index.port';
import { STOP_WORDS } from '../analysis/analyzer';

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

/**
 * The analysis of the lexical engine's analyzer (libs/chunk-index/src/analysis/analyzer.ts): tokens are
 * runs of letters and digits joined by one `.`, `_`, `-` or `/`; word_delimiter_graph splits them at the
 * joiners and case changes (letters and digits together) and keeps the original; marks folded, lower
 * case, the lexical engine's stop words, Porter stems. The index side flattens the graph (as Elasticsearch asks of a
 * graph filter at index time); queries keep it. `_meta.analysis` names this analysis: an index made with
 * another is rebuilt (the chunk-index projection replays into a new one).
 */
export const CHUNKS_ANALYSIS = {
  version: 3,
  settings: {
    analysis: {
      tokenizer: {
        larder_tokens: { type: 'pattern', pattern: '[\\p{L}\\p{N}]+(?:[._/-][\\p{L}\\p{N}]+)*', group: 0 },
      },
      filter: {
        larder_parts: {
          type: 'word_delimiter_graph',
          preserve_original: true,
          split_on_numerics: false,
        },
        larder_stop: { type: 'stop', stopwords: [...STOP_WORDS] },
      },
      analyzer: {
        larder_index: {
          tokenizer: 'larder_tokens',
          filter: ['larder_parts', 'flatten_graph', 'asciifolding', 'lowercase', 'larder_stop', 'porter_stem'],
        },
        larder_search: {
          tokenizer: 'larder_tokens',
          filter: ['larder_parts', 'asciifolding', 'lowercase', 'larder_stop', 'porter_stem'],
        },
      },
    },
  },
};

/** The `chunks` index: text with the lexical analysis above (BM25) and a `wildcard` sub-field; one cosine HNSW `vector_<dims>` field per dimension. */
export const CHUNKS_INDEX = {
  settings: CHUNKS_ANALYSIS.settings,
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
    _meta: { analysis: CHUNKS_ANALYSIS.version },
    properties: {
      store_id: { type: 'keyword' },
      file_id: { type: 'keyword' },
      generation: { type: 'integer' },
      chunk_index: { type: 'integer' },
      text: {
        type: 'text',
        analyzer: 'larder_index',
        search_analyzer: 'larder_search',
        fields: { raw: { type: 'wildcard' } },
      },
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

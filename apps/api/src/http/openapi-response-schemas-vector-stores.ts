/**
 * The response schemas of OpenAI's vector-store API: vector stores, their files, file batches and search.
 */

import {
  arr,
  bool,
  deleted,
  int,
  lit,
  nullable,
  num,
  obj,
  oneOfEnum,
  openAiList,
  Schema,
  str,
} from './openapi-schema-builders';

const openAiFileCounts = obj({ in_progress: int, completed: int, failed: int, cancelled: int, total: int });

/** The schemas of OpenAI's vector stores, vector-store files and file batches. */
export const VECTOR_STORE_RESPONSE_SCHEMAS: Record<string, Schema> = {
  VectorStore: obj(
    {
      id: str,
      object: lit('vector_store'),
      created_at: int,
      name: nullable(str),
      usage_bytes: int,
      file_counts: openAiFileCounts,
      status: oneOfEnum('expired', 'in_progress', 'completed'),
      metadata: nullable({ type: 'object' }),
    },
    {
      description: nullable(str),
      expires_after: nullable({ type: 'object' }),
      expires_at: nullable(int),
      last_active_at: nullable(int),
    },
  ),
  VectorStoreList: openAiList('VectorStore'),
  VectorStoreDeleted: deleted('vector_store.deleted'),
  VectorStoreFile: obj(
    {
      id: str,
      object: lit('vector_store.file'),
      usage_bytes: int,
      created_at: int,
      vector_store_id: str,
      status: oneOfEnum('in_progress', 'completed', 'cancelled', 'failed'),
      last_error: nullable(obj({ code: str, message: str })),
    },
    { attributes: nullable({ type: 'object' }), chunking_strategy: { type: 'object' } },
  ),
  VectorStoreFileList: openAiList('VectorStoreFile'),
  VectorStoreFileDeleted: deleted('vector_store.file.deleted'),
  VectorStoreFileContent: obj({
    object: lit('vector_store.file_content.page'),
    data: arr(obj({ type: str, text: str })),
    has_more: bool,
    next_page: nullable(str),
  }),
  VectorStoreFileBatch: obj({
    id: str,
    object: lit('vector_store.files_batch'),
    created_at: int,
    vector_store_id: str,
    status: oneOfEnum('in_progress', 'completed', 'cancelled', 'failed'),
    file_counts: openAiFileCounts,
  }),
  VectorStoreSearchResults: obj({
    object: lit('vector_store.search_results.page'),
    search_query: { anyOf: [str, arr(str)] },
    data: arr(
      obj({
        file_id: str,
        filename: str,
        score: num,
        attributes: nullable({ type: 'object' }),
        content: arr(obj({ type: str, text: str })),
      }),
    ),
    has_more: bool,
    next_page: nullable(str),
  }),
};

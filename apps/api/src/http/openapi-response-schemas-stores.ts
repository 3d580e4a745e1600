/**
 * The response schemas of stores: stores, store files, search rules, and what searching, grep, facets and
 * question answering over them answer.
 */

import {
  any,
  arr,
  bool,
  cursorList,
  deleted,
  dt,
  int,
  lit,
  nullable,
  num,
  obj,
  oneOfEnum,
  ref,
  Schema,
  str,
} from './openapi-schema-builders';

const fileCounts = obj({ pending: int, in_progress: int, cancelled: int, completed: int, failed: int, total: int });
const storeFileStatus = oneOfEnum('pending', 'in_progress', 'cancelled', 'completed', 'failed');

const chunkTypes = ['text', 'image_url', 'audio_url', 'video_url'];
const rule = {
  type: 'object',
  required: ['type', 'query', 'store_id'],
  properties: {
    type: { enum: ['query_string', 'query_regex', 'chunk_search_result', 'file_search_result'] },
    query: str,
    store_id: str,
    substitution: str,
    pattern: str,
    replacement: str,
    flags: arr(oneOfEnum('IGNORECASE', 'MULTILINE', 'DOTALL', 'VERBOSE', 'ASCII', 'UNICODE')),
    file_id: str,
    chunk_index: { type: 'integer', minimum: 0 },
    result_index: { type: 'integer', minimum: 0 },
  },
};

/** The schemas of stores, their files, search rules and search results. */
export const STORE_RESPONSE_SCHEMAS: Record<string, Schema> = {
  Store: obj(
    {
      id: str,
      name: str,
      description: nullable(str),
      is_public: bool,
      metadata: any,
      file_counts: fileCounts,
      status: oneOfEnum('expired', 'in_progress', 'completed', 'failed'),
      created_at: dt,
      updated_at: dt,
      usage_bytes: int,
      usage_tokens: int,
      object: lit('store'),
    },
    {
      license: nullable(str),
      config: nullable({
        type: 'object',
        properties: {
          save_content: bool,
          contextualization: { anyOf: [bool, { type: 'object' }] },
          lsf: nullable({ type: 'object' }),
        },
      }),
      bucket_id: nullable(str),
      expires_after: nullable(obj({ anchor: lit('last_active_at'), days: int })),
      last_active_at: nullable(dt),
      expires_at: nullable(dt),
      copy_state: nullable(
        obj(
          {
            role: oneOfEnum('source', 'target'),
            status: oneOfEnum('in_progress', 'failed'),
            peer_store_id: str,
            started_at: dt,
          },
          { error: nullable(str) },
        ),
      ),
    },
  ),
  StoreList: cursorList('Store'),
  StoreDeleted: deleted('store'),
  StoreFile: obj(
    {
      id: str,
      filename: str,
      status: storeFileStatus,
      store_id: str,
      created_at: dt,
      object: lit('store.file'),
      content_url: nullable(str),
    },
    {
      metadata: any,
      external_id: nullable(str),
      last_error: any,
      version: nullable(int),
      usage_bytes: nullable(int),
      usage_tokens: nullable(int),
      config: nullable({ type: 'object', properties: { parsing_strategy: oneOfEnum('fast', 'high_quality') } }),
      chunks: nullable(arr(obj({ type: { enum: chunkTypes }, chunk_index: int }))),
    },
  ),
  StoreFileList: cursorList('StoreFile'),
  StoreFileDeleted: deleted('store.file'),
  Rule: rule,
  SearchRule: obj({
    id: str,
    object: lit('search_rule'),
    query: str,
    store_id: str,
    rules: arr(ref('Rule')),
    created_at: dt,
    updated_at: dt,
  }),
  SearchRuleDeleted: obj({ deleted: { const: true }, object: lit('search_rule.deleted') }),
  SearchRuleSpecificDeleted: obj({
    id: str,
    object: lit('search_rule'),
    deleted_rule: ref('Rule'),
    remaining_rules: int,
  }),
  ScoredChunk: obj(
    {
      type: { enum: chunkTypes },
      chunk_index: int,
      score: num,
      file_id: str,
      filename: str,
      store_id: str,
      metadata: any,
    },
    {
      mime_type: str,
      generated_metadata: nullable({ type: 'object' }),
      model: nullable(str),
      text: nullable(str),
      offset: int,
      ocr_text: nullable(str),
      image_url: nullable(obj({ url: str }, { format: str })),
      transcription: nullable(str),
      audio_url: nullable(obj({ url: str })),
      video_url: nullable(obj({ url: str })),
      sampling_rate: int,
      context: nullable(str),
      summary: nullable(str),
      external_id: nullable(str),
    },
  ),
  ScoredChunkList: obj({ object: lit('list'), data: arr(ref('ScoredChunk')) }),
  StoreSearchResponse: obj({ object: lit('list'), data: arr(ref('ScoredChunk')) }, { trace: any }),
  ScoredStoreFile: { allOf: [ref('StoreFile'), obj({ score: num })] },
  StoreFileSearchResponse: obj({ object: lit('list'), data: arr(ref('ScoredStoreFile')) }),
  MetadataFacets: obj({
    facets: { type: 'object', additionalProperties: { type: 'object', additionalProperties: int } },
  }),
  StoreQAResults: obj({ answer: str, sources: arr(ref('ScoredChunk')) }, { model: nullable(str) }),
};

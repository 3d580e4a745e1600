/**
 * The request bodies the OpenAPI document describes by hand: the unions the DTOs' generated schemas cannot
 * express (filters, file_ids, query, rerank, rules, credentials), and the multipart forms.
 */

import { ACCOUNT_REQUESTS } from './openapi-requests-account';
import { MODEL_REQUESTS } from './openapi-requests-models';
import { FILE_SEARCH_REQUESTS, SEARCH_REQUESTS } from './openapi-requests-search';

/** Request bodies whose unions (filters, file_ids, query, rerank, rules, credentials) the DTOs' generated schemas cannot express, by area. */
export const HAND_WRITTEN: Record<string, unknown> = {
  ...SEARCH_REQUESTS,
  ...MODEL_REQUESTS,
  ...ACCOUNT_REQUESTS,
  ...FILE_SEARCH_REQUESTS,
};

/** Which hand-written schema describes the body of which route (operation ids are Controller_method). */
export const BODIES: Record<string, string> = {
  SearchStoresHttpController_find: 'StoreSearchParams',
  QuestionAnsweringHttpController_answer: 'StoreQuestionAnsweringParams',
  SearchFilesHttpController_search: 'StoreFileSearchParams',
  GrepStoresHttpController_grep: 'StoreGrepParams',
  ListChunksHttpController_listChunks: 'StoreListChunksParams',
  MetadataFacetsHttpController_facets: 'StoreMetadataFacetsParams',
  CreateSearchRuleHttpController_create: 'SearchRuleCreateParams',
  UpdateSearchRuleHttpController_update: 'SearchRuleCreateParams',
  CreateEmbeddingsHttpController_create: 'EmbeddingCreateParams',
  RerankHttpController_rerank: 'RerankParams',
  CreateBucketHttpController_create: 'BucketCreateParams',
  RotateBucketCredentialsHttpController_rotate: 'BucketRotateCredentialsParams',
  CreateTraceDestinationHttpController_create: 'TraceDestinationCreateParams',
  UpdateTraceDestinationHttpController_update: 'TraceDestinationUpdateParams',
};

/** Operations whose bodies are multipart forms, and the fields of each. */
const fileField = { type: 'string', contentMediaType: 'application/octet-stream', description: 'the file' };
export const MULTIPART: Record<string, Record<string, unknown>> = {
  'POST /v1/files': {
    type: 'object',
    required: ['file'],
    properties: {
      file: fileField,
      purpose: { type: 'string', description: "OpenAI's file purpose, echoed on the file" },
      description: { type: 'string', description: 'matched by `q` of the file list' },
    },
  },
  'POST /v1/files/{file_id}': { type: 'object', required: ['file'], properties: { file: fileField } },
  'POST /v1/stores/{store_identifier}/files/upload': {
    type: 'object',
    required: ['file'],
    properties: {
      file: fileField,
      params: {
        type: 'string',
        contentMediaType: 'application/json',
        description: 'the JSON body of POST /v1/stores/{store_identifier}/files without file_id',
      },
      metadata: {
        type: 'string',
        contentMediaType: 'application/json',
        description: 'file metadata as JSON (wins over params)',
      },
      config: {
        type: 'string',
        contentMediaType: 'application/json',
        description: 'ingestion options as JSON (wins over params)',
      },
    },
  },
};

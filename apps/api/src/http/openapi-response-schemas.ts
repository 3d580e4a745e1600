/**
 * The response schemas of the OpenAPI document (components.schemas), as the server really answers:
 * test/openapi.e2e-spec.ts checks them against a real answer of every operation. Objects allow keys they
 * do not name (the documented Larder additions).
 */

import { ACCOUNT_RESPONSE_SCHEMAS } from './openapi-response-schemas-account';
import { MODEL_RESPONSE_SCHEMAS } from './openapi-response-schemas-models';
import { STORE_RESPONSE_SCHEMAS } from './openapi-response-schemas-stores';
import { VECTOR_STORE_RESPONSE_SCHEMAS } from './openapi-response-schemas-vector-stores';
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
  obj,
  offsetList,
  oneOfEnum,
  ref,
  Schema,
  str,
} from './openapi-schema-builders';

const cursorPagination = obj(
  { has_more: bool, first_cursor: nullable(str), last_cursor: nullable(str) },
  { total: nullable(int) },
);

/** The response schemas (components.schemas): errors, service, API keys and files here, the rest by area. */
export const RESPONSE_SCHEMAS: Record<string, Schema> = {
  Error: {
    description: 'Every error but 422: the status, a message, a machine-readable type',
    ...obj({ error: obj({ message: str, code: int, type: str }), message: str }),
  },
  ValidationErrorItem: obj(
    { loc: arr({ type: ['string', 'integer'] }), msg: str, type: str },
    { input: any, ctx: { type: 'object' } },
  ),
  ValidationError: {
    description: '422: one entry per invalid input (pydantic style)',
    ...obj({ detail: arr(ref('ValidationErrorItem')) }, { message: str }),
  },
  CursorPagination: cursorPagination,
  InfoResponse: obj({ name: str, version: str }),
  Health: obj({ status: oneOfEnum('ok', 'degraded', 'failing', 'starting') }),
  HealthReady: obj({ status: str, checks: { type: 'object', additionalProperties: obj({ status: str }) } }),
  OpenApiDocument: obj(
    { openapi: str, info: { type: 'object' }, paths: { type: 'object' } },
    { components: { type: 'object' } },
  ),
  ApiKey: obj(
    {
      id: str,
      name: str,
      redacted_value: str,
      expires_at: nullable(dt),
      created_at: dt,
      updated_at: dt,
      last_active_at: nullable(dt),
      object: lit('api_key'),
    },
    { scope: nullable(arr(obj({ method: str }, { target: any }))) },
  ),
  ApiKeyCreated: {
    allOf: [ref('ApiKey'), obj({ value: str })],
    description: 'the key with its secret `value` (shown once)',
  },
  ApiKeyList: offsetList('ApiKey'),
  ApiKeyDeleted: deleted('api_key'),
  FileObject: obj(
    {
      id: str,
      filename: str,
      bytes: int,
      mime_type: str,
      version: int,
      created_at: dt,
      updated_at: dt,
      object: lit('file'),
    },
    { purpose: nullable(str), status: str, description: nullable(str) },
  ),
  FileList: cursorList('FileObject'),
  FileDeleted: deleted('file'),
  MultipartUploadPartUrl: obj({ part_number: { type: 'integer', minimum: 1 }, url: str }),
  MultipartUploadPart: obj({ part_number: { type: 'integer', minimum: 1 }, etag: str }),
  MultipartUploadCreated: obj({ id: str, part_urls: arr(ref('MultipartUploadPartUrl')) }),
  MultipartUpload: obj({ id: str, filename: str, file_size: int, mime_type: str, part_count: int, created_at: dt }),
  MultipartUploadList: obj({ data: arr(ref('MultipartUpload')) }),
  MultipartUploadDetail: {
    allOf: [
      ref('MultipartUpload'),
      obj({ completed_parts: arr(ref('MultipartUploadPart')), part_urls: arr(ref('MultipartUploadPartUrl')) }),
    ],
  },
  ...STORE_RESPONSE_SCHEMAS,
  ...MODEL_RESPONSE_SCHEMAS,
  ...ACCOUNT_RESPONSE_SCHEMAS,
  ...VECTOR_STORE_RESPONSE_SCHEMAS,
};

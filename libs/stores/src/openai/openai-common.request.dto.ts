import { IsIn, IsOptional, IsString } from 'class-validator';
import { Check, isPlainObject, QueryInt } from '@larder/kernel';
import type { ChunkingData } from '../events';

/**
 * What OpenAI's vector store bodies share, checked as OpenAI documents it: `metadata` (16 string
 * values), `attributes` (16 string, number or boolean values), `chunking_strategy` and list paging.
 */

const MAX_KEYS = 16;
const MAX_KEY = 64;
const MAX_VALUE = 512;

function mapProblem(v: unknown, what: string, valueOk: (x: unknown) => boolean, valueKinds: string): string | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) return `${what} must be an object`;
  const keys = Object.keys(v);
  if (keys.length > MAX_KEYS) return `${what} may hold at most ${MAX_KEYS} keys (it holds ${keys.length})`;
  const long = keys.find((k) => k.length > MAX_KEY || k.length === 0);
  if (long !== undefined) return `${what} keys are 1–${MAX_KEY} characters ('${long.slice(0, 80)}' is not)`;
  const bad = keys.find((k) => !valueOk(v[k]));
  if (bad !== undefined) return `${what}.${bad} must be ${valueKinds}`;
  return null;
}

const shortString = (x: unknown) => typeof x === 'string' && x.length <= MAX_VALUE;
export const metadataProblem = (v: unknown) =>
  mapProblem(v, 'metadata', shortString, `a string of at most ${MAX_VALUE} characters`);
export const attributesProblem = (v: unknown) =>
  mapProblem(
    v,
    'attributes',
    (x) => shortString(x) || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)),
    `a string of at most ${MAX_VALUE} characters, a number or a boolean`,
  );

/** `metadata`: up to 16 keys of 64 characters, string values of 512; null clears it. */
export const IsOpenAiMetadata = () =>
  Check(
    'openAiMetadata',
    'value_error',
    (v) => metadataProblem(v) ?? '',
    (v) => metadataProblem(v) === null,
  );
/** `attributes`: up to 16 keys of 64 characters, values strings of 512, numbers or booleans; null clears them. */
export const IsAttributes = () =>
  Check(
    'attributes',
    'value_error',
    (v) => attributesProblem(v) ?? '',
    (v) => attributesProblem(v) === null,
  );

/** OpenAI's bounds for a static chunking strategy. */
export const MIN_CHUNK_TOKENS = 100;
export const MAX_CHUNK_TOKENS = 4096;

export function chunkingProblem(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v))
    return 'chunking_strategy must be an object: {"type": "auto"} or {"type": "static", "static": {...}}';
  if (v.type === 'auto') return Object.keys(v).length === 1 ? null : 'an auto chunking_strategy takes no other fields';
  if (v.type !== 'static') return `chunking_strategy.type must be 'auto' or 'static'`;
  const s = v.static;
  if (!isPlainObject(s))
    return 'chunking_strategy.static must be an object with max_chunk_size_tokens and chunk_overlap_tokens';
  const max = s.max_chunk_size_tokens;
  const overlap = s.chunk_overlap_tokens;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < MIN_CHUNK_TOKENS || max > MAX_CHUNK_TOKENS) {
    return `chunking_strategy.static.max_chunk_size_tokens must be an integer from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}`;
  }
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0)
    return 'chunking_strategy.static.chunk_overlap_tokens must be an integer of at least 0';
  if (overlap > max / 2)
    return 'chunking_strategy.static.chunk_overlap_tokens must not exceed half of max_chunk_size_tokens';
  return null;
}
export const IsChunkingStrategy = () =>
  Check(
    'chunkingStrategy',
    'value_error',
    (v) => chunkingProblem(v) ?? '',
    (v) => chunkingProblem(v) === null,
  );

/** A validated `chunking_strategy` as a chunk size: `static` gives one; `auto` or absent none (the parsing strategy's). */
export function chunkingOf(v: unknown): ChunkingData | null {
  if (!isPlainObject(v) || v.type !== 'static' || !isPlainObject(v.static)) return null;
  return {
    maxTokens: v.static.max_chunk_size_tokens as number,
    overlapTokens: v.static.chunk_overlap_tokens as number,
  };
}

/** OpenAI's list parameters. */
export class OpenAiListRequestDto {
  @QueryInt(1, 100) limit?: number;
  @IsOptional() @IsIn(['asc', 'desc']) order?: 'asc' | 'desc';
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
}

/** A file listing's `filter` by OpenAI status. */
export class OpenAiFileListRequestDto extends OpenAiListRequestDto {
  @IsOptional() @IsIn(['in_progress', 'completed', 'failed', 'cancelled']) filter?:
    'in_progress' | 'completed' | 'failed' | 'cancelled';
}

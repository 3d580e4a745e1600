import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsOptional, ValidateIf, ValidateNested } from 'class-validator';
import { Check, isPlainObject, OptionalBoolean, Problems, LIMITS } from '@larder/kernel';

export const DEFAULT_RERANK_MODEL = 'mixedbread-ai/mxbai-rerank-large-v2';

export interface RerankOptions {
  model: string;
  withMetadata: boolean | string[];
  topK: number | null;
}

/** `search_options.agentic` (`AgenticSearchConfig`), with the defaults applied. */
export interface AgenticOptions {
  maxRounds: number;
  queriesPerRound: number;
  /** Results each query of a round retrieves (null: max(top_k, 20)). */
  resultsPerQuery: number | null;
  strictTopK: boolean;
  mediaContent: 'auto' | 'never' | 'always';
  instructions: string | null;
  verbose: boolean;
}

export interface SearchOptions {
  scoreThreshold: number;
  rewriteQuery: boolean;
  rerank: RerankOptions | null;
  returnMetadata: boolean;
  applySearchRules: boolean;
  /** Multi-round agentic search (null: a plain search). */
  agentic: AgenticOptions | null;
}

/** The object form of `search_options.rerank`. */
export class RerankRequestDto {
  @Check(
    'model',
    'string_type',
    'String should have 1 to 500 characters',
    (v) => v === undefined || v === null || (typeof v === 'string' && v.length >= 1 && v.length <= 500),
  )
  model?: string | null;

  @Check(
    'withMetadata',
    'value_error',
    'Input should be a boolean or a list of keys',
    (v) =>
      v === undefined ||
      v === null ||
      typeof v === 'boolean' ||
      (Array.isArray(v) && v.every((x) => typeof x === 'string')),
  )
  with_metadata?: boolean | string[] | null;

  @Check(
    'positive',
    'greater_than',
    'Input should be a positive integer',
    (v) => v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 1),
  )
  top_k?: number | null;
}

const intIn = (min: number, max: number) => (v: unknown) =>
  v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max);

/** The object form of `search_options.agentic` (`AgenticSearchConfig`). */
export class AgenticRequestDto {
  @Check('range', 'value_error', 'Input should be an integer from 1 to 10', intIn(1, 10))
  max_rounds?: number | null;

  @Check('range', 'value_error', 'Input should be an integer from 1 to 10', intIn(1, 10))
  queries_per_round?: number | null;

  @Check('range', 'value_error', 'Input should be an integer from 1 to 100', intIn(1, 100))
  results_per_query?: number | null;

  @OptionalBoolean()
  strict_top_k?: boolean | null;

  @Check(
    'enum',
    'enum',
    "Input should be 'auto', 'never' or 'always'",
    (v) => v === undefined || v === null || v === 'auto' || v === 'never' || v === 'always',
  )
  media_content?: 'auto' | 'never' | 'always' | null;

  @Check(
    'length',
    'string_type',
    'Input should be a string of 1 to 5000 characters',
    (v) => v === undefined || v === null || (typeof v === 'string' && v.length >= 1 && v.length <= 5000),
  )
  instructions?: string | null;

  @OptionalBoolean()
  verbose?: boolean | null;
}

/** `search_options` of a search: score threshold, query rewriting, rerank, metadata, search rules, agentic. */
export class SearchOptionsRequestDto {
  @Check(
    'between',
    'value_error',
    'Input should be a number between 0 and 1',
    (v) => v === undefined || v === null || (typeof v === 'number' && v >= 0 && v <= 1),
  )
  score_threshold?: number | null;

  @OptionalBoolean()
  rewrite_query?: boolean | null;

  /** `true`, `false`, or a rerank config. */
  @IsOptional()
  @ValidateIf((_, v) => typeof v !== 'boolean')
  @Check('notList', 'value_error', 'Input should be a boolean or a rerank config', (v) => !Array.isArray(v))
  @ValidateNested({ message: 'Input should be a boolean or a rerank config' })
  @Type(() => RerankRequestDto)
  rerank?: boolean | RerankRequestDto | null;

  @OptionalBoolean()
  return_metadata?: boolean | null;

  @OptionalBoolean()
  apply_search_rules?: boolean | null;

  /** `true`, `false`, or an agentic search config. */
  @IsOptional()
  @ValidateIf((_, v) => typeof v !== 'boolean')
  @Check('notList', 'value_error', 'Input should be a boolean or an agentic search config', (v) => !Array.isArray(v))
  @ValidateNested({ message: 'Input should be a boolean or an agentic search config' })
  @Type(() => AgenticRequestDto)
  agentic?: boolean | AgenticRequestDto | null;

  static toOptions(o: SearchOptionsRequestDto | null | undefined): SearchOptions {
    const r = o?.rerank;
    return {
      scoreThreshold: o?.score_threshold ?? 0,
      rewriteQuery: o?.rewrite_query ?? false,
      rerank:
        r === true
          ? { model: DEFAULT_RERANK_MODEL, withMetadata: false, topK: null }
          : r instanceof RerankRequestDto
            ? { model: r.model ?? DEFAULT_RERANK_MODEL, withMetadata: r.with_metadata ?? false, topK: r.top_k ?? null }
            : null,
      returnMetadata: o?.return_metadata ?? true,
      applySearchRules: o?.apply_search_rules ?? true,
      agentic: agenticOptions(o?.agentic),
    };
  }
}

function agenticOptions(a: boolean | AgenticRequestDto | null | undefined): AgenticOptions | null {
  if (a !== true && !(a instanceof AgenticRequestDto)) return null;
  const o = a === true ? new AgenticRequestDto() : a;
  return {
    maxRounds: o.max_rounds ?? 3,
    queriesPerRound: o.queries_per_round ?? 4,
    resultsPerQuery: o.results_per_query ?? null,
    strictTopK: o.strict_top_k ?? false,
    mediaContent: o.media_content ?? 'auto',
    instructions: o.instructions ?? null,
    verbose: o.verbose ?? false,
  };
}

/** The `search_options` field: null or an object (of `options`, a subclass where a route takes more options). */
export const SearchOptionsField = (options: new () => SearchOptionsRequestDto = SearchOptionsRequestDto) =>
  applyDecorators(
    IsOptional(),
    Check('notList', 'model_type', 'Input should be an object', (v) => !Array.isArray(v)),
    ValidateNested({ message: 'Input should be an object' }),
    Type(() => options),
  );

const MAX_QUERY = LIMITS.queryChars;
const isTextInput = (v: unknown): v is { type?: 'text'; text: string } =>
  isPlainObject(v) && (v.type === 'text' || v.type === undefined) && typeof v.text === 'string';

const isNumberList = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/**
 * `query`: a string or a `TextInput` (image queries need a multimodal embedder: 422 here); with
 * `vectors`, also an embedding (a list of numbers, checked against the embedder's dimensions where it is searched).
 */
export const QueryField = (required: boolean, vectors = false) =>
  applyDecorators(
    Check('required', 'missing', 'Field required', (v) => !required || (v !== undefined && v !== null)),
    Check(
      'stringTooShort',
      'string_too_short',
      'String should have at least 1 character',
      (v) => typeof v !== 'string' || !!v.trim(),
    ),
    Check(
      'stringTooLong',
      'string_too_long',
      `String should have at most ${MAX_QUERY} characters`,
      (v) => typeof v !== 'string' || v.length <= MAX_QUERY,
    ),
    Check(
      'imageQuery',
      'value_error',
      'Image queries are not supported: this server embeds text only. Images in stores are searchable by their OCR text: send the words you look for as a text query',
      (v) => !(isPlainObject(v) && v.type === 'image_url'),
    ),
    Check(
      'emptyVector',
      'too_short',
      'An embedding query should have at least 1 number',
      (v) => !vectors || !Array.isArray(v) || v.length > 0,
    ),
    Check(
      'textInput',
      'value_error',
      vectors
        ? 'Input should be a string, a text input {type: "text", text} or an embedding (a list of numbers)'
        : 'Input should be a string or a text input {type: "text", text}',
      (v) =>
        v === undefined ||
        v === null ||
        typeof v === 'string' ||
        isTextInput(v) ||
        (isPlainObject(v) && v.type === 'image_url') ||
        (vectors && isNumberList(v)),
    ),
  );

/** The query's embedding where it is one (a list of numbers); null otherwise. */
export const queryVector = (v: unknown): number[] | null => (isNumberList(v) && v.length ? v : null);

/** The query's text (the `text` of a TextInput is checked here, at its own location); null when absent. */
export function queryText(p: Problems, v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (!isTextInput(v)) return null;
  if (!v.text.trim())
    p.add(['body', 'query', 'text'], 'String should have at least 1 character', 'string_too_short', v.text);
  else if (v.text.length > MAX_QUERY)
    p.add(
      ['body', 'query', 'text'],
      `String should have at most ${MAX_QUERY} characters`,
      'string_too_long',
      v.text.length,
    );
  return v.text;
}

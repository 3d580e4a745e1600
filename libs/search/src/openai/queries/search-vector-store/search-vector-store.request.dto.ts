import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { Allow } from 'class-validator';
import { Check, FilterNode, LIMITS, Problems } from '@larder/kernel';
import { openAiFilter } from '../../openai-filters';

const MAX_QUERIES = 16;
const validQuery = (v: unknown) =>
  (typeof v === 'string' && !!v.trim() && v.length <= LIMITS.queryChars) ||
  (Array.isArray(v) &&
    v.length >= 1 &&
    v.length <= MAX_QUERIES &&
    v.every((x) => typeof x === 'string' && !!x.trim() && x.length <= LIMITS.queryChars));

/** `ranking_options`: `ranker` `none` turns reranking off; `score_threshold` applies to the final score (0–1). */
export class RankingOptionsDto {
  @IsOptional() @IsIn(['none', 'auto', 'default-2024-11-15']) ranker?: 'none' | 'auto' | 'default-2024-11-15';
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) score_threshold?: number;
}

/** `VectorStoreSearchParams`. */
export class SearchVectorStoreRequestDto {
  @Check('required', 'missing', 'Field required', (v) => v !== undefined && v !== null)
  @Check(
    'query',
    'value_error',
    `query must be a non-empty string, or a list of 1 to ${MAX_QUERIES} of them, each at most ${LIMITS.queryChars} characters`,
    (v) => v === undefined || v === null || validQuery(v),
  )
  query!: string | string[];

  /** A comparison or compound filter over the files' attributes: translated by `filter()`. */
  @Allow() filters?: unknown;

  @IsOptional() @IsInt() @Min(1) @Max(50) max_num_results?: number;
  @IsOptional() @ValidateNested() @Type(() => RankingOptionsDto) ranking_options?: RankingOptionsDto;
  @IsOptional() @IsBoolean() rewrite_query?: boolean;

  /** The filters as Larder's tree (422 with the `loc` of a bad part). */
  filter(): FilterNode | null {
    const p = new Problems();
    const node = openAiFilter(this.filters, p);
    p.throwIfAny();
    return node;
  }
}

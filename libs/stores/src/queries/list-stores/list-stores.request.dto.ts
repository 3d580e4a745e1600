import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { QueryBoolean, QueryInt } from '@larder/kernel';

/** `GET /v1/stores` query: cursor paging, and `q` for a fuzzy match on name and description. */
export class ListStoresRequestDto {
  @QueryInt(1, 100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @QueryBoolean() include_total?: boolean;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) q?: string;
}

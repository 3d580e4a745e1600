import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { QueryBoolean } from '@larder/kernel';

/** `GET /v1/stores` query: cursor paging, and `q` for a fuzzy match on name and description. */
export class ListStoresRequestDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @QueryBoolean() include_total?: boolean;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) q?: string;
}

import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

/** `GET /v1/stores` query: cursor paging, and `q` for a fuzzy match on name and description. */
export class ListStoresRequestDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @IsOptional() @Transform(({ value }) => value === true || value === 'true') @IsBoolean() include_total?: boolean;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) q?: string;
}

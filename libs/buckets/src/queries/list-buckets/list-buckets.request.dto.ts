import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/** `GET /v1/buckets` query: cursor paging (`limit`, `after`, `before`, `include_total`). */
export class ListBucketsRequestDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @IsOptional() @Transform(({ value }) => value === true || value === 'true') @IsBoolean() include_total?: boolean;
}

import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { QueryInt } from '@larder/kernel';

/** `GET /v1/buckets` query: cursor paging (`limit`, `after`, `before`, `include_total`). */
export class ListBucketsRequestDto {
  @QueryInt(1, 100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @IsOptional() @Transform(({ value }) => value === true || value === 'true') @IsBoolean() include_total?: boolean;
}

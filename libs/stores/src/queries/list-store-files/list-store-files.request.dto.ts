import { Transform } from 'class-transformer';
import {
  Allow,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { QueryBoolean, QueryInt } from '@larder/kernel';

export const STORE_FILE_STATUSES = ['pending', 'in_progress', 'cancelled', 'completed', 'failed'] as const;

/** `POST …/files/list` body: cursor paging, `statuses`, a file-metadata filter and `q` (file name). */
export class ListStoreFilesRequestDto {
  @IsOptional() @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() after?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() before?: string | null;
  @IsOptional() @IsBoolean() include_total?: boolean;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsArray() @IsIn(STORE_FILE_STATUSES, { each: true }) statuses?:
    string[] | null;
  @IsOptional() @Allow() metadata_filter?: unknown;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MinLength(1) @MaxLength(255) q?: string | null;
}

const toList = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/** Deprecated `GET …/files` query: cursor paging and `statuses` (repeated). */
export class ListStoreFilesDeprecatedRequestDto {
  @QueryInt(1, 100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @QueryBoolean() include_total?: boolean;
  @IsOptional() @Transform(toList) @IsArray() @IsIn(STORE_FILE_STATUSES, { each: true }) statuses?: string[];
}

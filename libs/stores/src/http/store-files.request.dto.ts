import { Transform, Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';

export const STORE_FILE_STATUSES = ['pending', 'in_progress', 'cancelled', 'completed', 'failed'] as const;

export class StoreFileConfigDto {
  @IsOptional() @IsIn(['fast', 'high_quality']) parsing_strategy?: 'fast' | 'high_quality';
}

export class AddStoreFileRequestDto {
  @IsUUID('all') file_id!: string;
  @IsOptional() @Allow() metadata?: unknown;
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => StoreFileConfigDto) config?: StoreFileConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => StoreFileConfigDto) experimental?: StoreFileConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) external_id?: string | null;
  @IsOptional() @IsBoolean() overwrite?: boolean;
}

export class ListStoreFilesRequestDto {
  @IsOptional() @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() after?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() before?: string | null;
  @IsOptional() @IsBoolean() include_total?: boolean;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsArray() @IsIn(STORE_FILE_STATUSES, { each: true }) statuses?: string[] | null;
  @IsOptional() @Allow() metadata_filter?: unknown;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MinLength(1) @MaxLength(255) q?: string | null;
}

const toList = ({ value }: { value: unknown }) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

export class ListStoreFilesQueryDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @IsOptional() @Transform(({ value }) => value === true || value === 'true') @IsBoolean() include_total?: boolean;
  @IsOptional() @Transform(toList) @IsArray() @IsIn(STORE_FILE_STATUSES, { each: true }) statuses?: string[];
}

export class UpdateStoreFileRequestDto {
  @IsOptional() @Allow() metadata?: unknown;
}

export class GetStoreFileQueryDto {
  /** `true`/`false`, or one or more chunk indices (`return_chunks=0&return_chunks=3`). */
  @IsOptional() @Allow() return_chunks?: string | string[];
}

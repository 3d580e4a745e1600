import { Transform, Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';

export class ExpiresAfterDto {
  @IsOptional() @IsIn(['last_active_at']) anchor?: 'last_active_at';
  @IsOptional() @IsInt() @Min(1) @Max(3650) days?: number;
}

export class ContextualizationDto {
  @IsOptional() @Allow() with_metadata?: boolean | string[];
  @IsOptional() @IsBoolean() with_file_context?: boolean;
}

export class StoreConfigDto {
  @IsOptional() @Allow() contextualization?: boolean | ContextualizationDto;
  @IsOptional() @IsBoolean() save_content?: boolean;
  @IsOptional() @Allow() lsf?: Record<string, unknown> | null;
}

export class UpdateStoreRequestDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MinLength(1) @MaxLength(128) name?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) description?: string | null;
  @IsOptional() @IsBoolean() is_public?: boolean;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() license?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => ExpiresAfterDto) expires_after?: ExpiresAfterDto | null;
  @IsOptional() @Allow() metadata?: unknown;
}

export class CreateStoreRequestDto extends UpdateStoreRequestDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => StoreConfigDto) config?: StoreConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsArray() @ArrayMaxSize(1000) @IsUUID('all', { each: true }) file_ids?: string[] | null;
}

export class CopyStoreRequestDto {
  @IsString() @MinLength(1) @MaxLength(128) name!: string;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) description?: string | null;
  @IsOptional() @Allow() metadata?: unknown;
}

export class ListStoresRequestDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsString() after?: string;
  @IsOptional() @IsString() before?: string;
  @IsOptional() @Transform(({ value }) => value === true || value === 'true') @IsBoolean() include_total?: boolean;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) q?: string;
}

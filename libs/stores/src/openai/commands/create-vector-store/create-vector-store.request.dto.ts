import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { LIMITS } from '@larder/kernel';
import { IsChunkingStrategy, IsOpenAiMetadata } from '../../openai-common.request.dto';

/** OpenAI's `expires_after`: both fields required. */
export class VectorStoreExpiresAfterDto {
  @IsIn(['last_active_at']) anchor!: 'last_active_at';
  @IsInt() @Min(1) @Max(365) days!: number;
}

/** `VectorStoreCreateParams`: `name` is free text (not unique); files are attached as the store is created. */
export class CreateVectorStoreRequestDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) name?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(512) description?: string | null;
  @IsOptional() @IsOpenAiMetadata() metadata?: Record<string, string> | null;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => VectorStoreExpiresAfterDto)
  expires_after?: VectorStoreExpiresAfterDto | null;
  @IsOptional() @IsArray() @ArrayMaxSize(LIMITS.fileIds) @IsUUID('all', { each: true }) file_ids?: string[];
  @IsOptional() @IsChunkingStrategy() chunking_strategy?: unknown;
}

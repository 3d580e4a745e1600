import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Check, LIMITS } from '@larder/kernel';
import { IsAttributes, IsChunkingStrategy } from '../../openai-common.request.dto';

/** One file of `files`, with its own attributes and chunk size. */
export class BatchFileDto {
  @IsString() @MinLength(1) @MaxLength(128) file_id!: string;
  @IsOptional() @IsAttributes() attributes?: Record<string, string | number | boolean> | null;
  @IsOptional() @IsChunkingStrategy() chunking_strategy?: unknown;
}

/** `FileBatchCreateParams`: `file_ids` (with shared `attributes` and `chunking_strategy`) or `files`, not both. */
export class CreateVectorStoreFileBatchRequestDto {
  @Check(
    'oneOf',
    'value_error',
    'Give file_ids or files (one of them, not both)',
    (v, dto) => (v !== undefined && v !== null) !== (dto.files !== undefined && dto.files !== null),
  )
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.fileIds)
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  file_ids?: string[] | null;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.fileIds)
  @ValidateNested({ each: true })
  @Type(() => BatchFileDto)
  files?: BatchFileDto[] | null;
  @IsOptional() @IsAttributes() attributes?: Record<string, string | number | boolean> | null;
  @IsOptional() @IsChunkingStrategy() chunking_strategy?: unknown;
}

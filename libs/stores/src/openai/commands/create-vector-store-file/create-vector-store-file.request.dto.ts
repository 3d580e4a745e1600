import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsAttributes, IsChunkingStrategy } from '../../openai-common.request.dto';

/** `FileCreateParams` of a vector store file: an uploaded file, its `attributes` (the store file's metadata) and chunk size. */
export class CreateVectorStoreFileRequestDto {
  @IsString() @MinLength(1) @MaxLength(128) file_id!: string;
  @IsOptional() @IsAttributes() attributes?: Record<string, string | number | boolean> | null;
  @IsOptional() @IsChunkingStrategy() chunking_strategy?: unknown;
}

import { IsMetadata } from '@larder/kernel';
import { Type } from 'class-transformer';
import {
  IsBoolean,
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
import { MAX_CHUNK_SIZE } from '@larder/ingestion/chunker';

export class StoreFileConfigDto {
  @IsOptional() @IsIn(['fast', 'high_quality']) parsing_strategy?: 'fast' | 'high_quality';
  /** Largest chunk in tokens (the `mxbai` CLI's `--max-chunk-size`; not yet in the SDK's type); null or absent: the strategy's size. */
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(MAX_CHUNK_SIZE.min)
  @Max(MAX_CHUNK_SIZE.max)
  max_chunk_size?: number | null;
}

/** `StoreFileCreateParams`: the body that adds a file to a store. */
export class AddStoreFileRequestDto {
  @IsUUID('all') file_id!: string;
  @IsOptional() @IsMetadata() metadata?: unknown;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => StoreFileConfigDto)
  config?: StoreFileConfigDto | null;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => StoreFileConfigDto)
  experimental?: StoreFileConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) external_id?: string | null;
  @IsOptional() @IsBoolean() overwrite?: boolean;
}

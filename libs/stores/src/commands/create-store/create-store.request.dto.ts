import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsUUID, ValidateIf, ValidateNested } from 'class-validator';
import { UpdateStoreRequestDto } from '../update-store/update-store.request.dto';

export class ContextualizationDto {
  @IsOptional() @Allow() with_metadata?: boolean | string[];
  @IsOptional() @IsBoolean() with_file_context?: boolean;
}

export class StoreConfigDto {
  @IsOptional() @Allow() contextualization?: boolean | ContextualizationDto;
  @IsOptional() @IsBoolean() save_content?: boolean;
  @IsOptional() @Allow() lsf?: Record<string, unknown> | null;
}

/** `StoreCreateParams` (§12.1): the updatable fields plus `config`, `file_ids` and `bucket_id`. */
export class CreateStoreRequestDto extends UpdateStoreRequestDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => StoreConfigDto) config?: StoreConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsArray() @ArrayMaxSize(1000) @IsUUID('all', { each: true }) file_ids?: string[] | null;
  /** Larder takes `Store.bucket_id` (§12.2) on create: the store keeps its files' content and chunk artifacts in that bucket. */
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsUUID('all') bucket_id?: string | null;
}

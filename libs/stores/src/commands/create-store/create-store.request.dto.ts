import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsOptional,
  IsUUID,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Check, isPlainObject } from '@larder/kernel';
import { UpdateStoreRequestDto } from '../update-store/update-store.request.dto';

export interface ContextualizationDto {
  with_metadata?: boolean | string[];
  with_file_context?: boolean;
}

const isMetadataPaths = (v: unknown) =>
  Array.isArray(v) && v.length <= 100 && v.every((p) => typeof p === 'string' && p.length >= 1 && p.length <= 256);
/** `true`/`false`, or `{with_metadata?: bool | string[] (≤ 100 dot paths), with_file_context?: bool}` and nothing else. */
const isContextualization = (v: unknown) =>
  v === undefined ||
  typeof v === 'boolean' ||
  (isPlainObject(v) &&
    Object.keys(v).every((k) => k === 'with_metadata' || k === 'with_file_context') &&
    (v.with_metadata === undefined || typeof v.with_metadata === 'boolean' || isMetadataPaths(v.with_metadata)) &&
    (v.with_file_context === undefined || typeof v.with_file_context === 'boolean'));

export class StoreConfigDto {
  @Check(
    'contextualization',
    'value_error',
    'contextualization is a boolean or {with_metadata: boolean | list of up to 100 metadata paths, with_file_context: boolean}',
    isContextualization,
  )
  contextualization?: boolean | ContextualizationDto;
  @IsOptional() @IsBoolean() save_content?: boolean;
  @IsOptional() @Allow() lsf?: Record<string, unknown> | null;
}

/** `StoreCreateParams`: the updatable fields plus `config`, `file_ids` and `bucket_id`. */
export class CreateStoreRequestDto extends UpdateStoreRequestDto {
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => StoreConfigDto)
  config?: StoreConfigDto | null;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsArray()
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true })
  file_ids?: string[] | null;
  /** Larder takes `Store.bucket_id` on create: the store keeps its files' content and chunk artifacts in that bucket. */
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsUUID('all') bucket_id?: string | null;
}

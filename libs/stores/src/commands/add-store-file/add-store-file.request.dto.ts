import { IsMetadata } from '@larder/kernel';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength, ValidateIf, ValidateNested } from 'class-validator';

export class StoreFileConfigDto {
  @IsOptional() @IsIn(['fast', 'high_quality']) parsing_strategy?: 'fast' | 'high_quality';
}

/** `StoreFileCreateParams` (§13.1). */
export class AddStoreFileRequestDto {
  @IsUUID('all') file_id!: string;
  @IsOptional() @IsMetadata() metadata?: unknown;
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => StoreFileConfigDto) config?: StoreFileConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @ValidateNested() @Type(() => StoreFileConfigDto) experimental?: StoreFileConfigDto | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) external_id?: string | null;
  @IsOptional() @IsBoolean() overwrite?: boolean;
}

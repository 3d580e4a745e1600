import { IsMetadata } from '@larder/kernel';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

export class ExpiresAfterDto {
  @IsOptional() @IsIn(['last_active_at']) anchor?: 'last_active_at';
  @IsOptional() @IsInt() @Min(1) @Max(3650) days?: number;
}

/** `StoreUpdateParams`: the store fields an update may change. */
export class UpdateStoreRequestDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MinLength(1) @MaxLength(128) name?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) description?: string | null;
  @IsOptional() @IsBoolean() is_public?: boolean;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() license?: string | null;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => ExpiresAfterDto)
  expires_after?: ExpiresAfterDto | null;
  @IsOptional() @IsMetadata() metadata?: unknown;
}

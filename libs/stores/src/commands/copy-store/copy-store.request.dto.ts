import { IsMetadata } from '@larder/kernel';
import { IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

/** `StoreCopyParams`: the target's name, and optionally a description and metadata other than the source's. */
export class CopyStoreRequestDto {
  @IsString() @MinLength(1) @MaxLength(128) name!: string;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) description?: string | null;
  @IsOptional() @IsMetadata() metadata?: unknown;
}

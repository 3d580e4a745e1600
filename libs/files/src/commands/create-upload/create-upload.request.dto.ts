import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { LIMITS } from '@larder/kernel';
import { MIME_PATTERN } from '../../mime';
import { MAX_FILE_DESCRIPTION_CHARS } from '../../file-description';

/** `CreateMultipartUploadRequest`. */
export class CreateUploadRequestDto {
  @IsString() @MinLength(1) @MaxLength(LIMITS.filenameChars) filename!: string;
  @IsInt() @Min(1) file_size!: number;
  @IsString() @Matches(MIME_PATTERN, { message: 'mime_type must look like type/subtype' }) mime_type!: string;
  @IsOptional() @IsInt() @Min(1) @Max(10000) part_count?: number;
  /** Larder's own: the created file's description (`q` of the file list matches it; not in the SDK's params). */
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(MAX_FILE_DESCRIPTION_CHARS) description?:
    string | null;
}

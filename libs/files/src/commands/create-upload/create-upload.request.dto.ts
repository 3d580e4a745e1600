import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { MIME_PATTERN } from '../../mime';

/** `CreateMultipartUploadRequest`. */
export class CreateUploadRequestDto {
  @IsString() @MinLength(1) @MaxLength(1024) filename!: string;
  @IsInt() @Min(1) file_size!: number;
  @IsString() @Matches(MIME_PATTERN, { message: 'mime_type must look like type/subtype' }) mime_type!: string;
  @IsOptional() @IsInt() @Min(1) @Max(10000) part_count?: number;
}

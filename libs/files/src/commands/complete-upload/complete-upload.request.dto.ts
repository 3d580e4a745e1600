import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsString,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

export class UploadPartDto {
  @IsInt() @Min(1) @Max(10000) part_number!: number;
  @IsString() @MinLength(1) etag!: string;
}

/** `CompleteMultipartUploadRequest`. */
export class CompleteUploadRequestDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10000)
  @ValidateNested({ each: true })
  @Type(() => UploadPartDto)
  parts!: UploadPartDto[];
}

import { Allow, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { Check, Required } from '@larder/kernel';

const text = (max: number) =>
  Check(
    `text${max}`,
    'string_type',
    `Input should be a string of 1 to ${max} characters`,
    (v) => v === undefined || v === null || (typeof v === 'string' && v.trim().length >= 1 && v.length <= max),
  );

/**
 * `BucketCreateParams`. `credentials` is checked by the writer (`parseCredentials`),
 * not here: a 422 from class-validator would echo the value, which may hold a secret key.
 */
export class CreateBucketRequestDto {
  @Required() @text(255) name!: string;
  @IsOptional() @IsIn(['aws_s3']) provider?: 'aws_s3';
  @Required() @text(255) bucket!: string;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(64) region?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(2048) endpoint_url?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(1024) prefix?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(2048) sse_kms_key_id?: string | null;
  @Allow() credentials?: unknown;
}

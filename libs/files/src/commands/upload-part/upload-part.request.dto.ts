import { IsOptional, IsString } from 'class-validator';

/** The query of a part URL Larder signed: expiry (unix seconds) and HMAC signature. */
export class UploadPartRequestDto {
  @IsOptional() @IsString() expires?: string;
  @IsOptional() @IsString() signature?: string;
}

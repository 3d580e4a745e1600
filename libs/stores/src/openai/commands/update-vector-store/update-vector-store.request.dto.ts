import { Type } from 'class-transformer';
import { IsOptional, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { IsOpenAiMetadata } from '../../openai-common.request.dto';
import { VectorStoreExpiresAfterDto } from '../create-vector-store/create-vector-store.request.dto';

/** `VectorStoreUpdateParams`: `name` renames the display name (null clears it), `expires_after: null` ends the expiry. */
export class UpdateVectorStoreRequestDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(256) name?: string | null;
  @IsOptional() @IsOpenAiMetadata() metadata?: Record<string, string> | null;
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => VectorStoreExpiresAfterDto)
  expires_after?: VectorStoreExpiresAfterDto | null;
}

import { IsMetadata } from '@larder/kernel';
import { IsOptional } from 'class-validator';

/** `StoreFileUpdateParams`: `metadata` replaces the file's metadata. */
export class UpdateStoreFileRequestDto {
  @IsOptional() @IsMetadata() metadata?: unknown;
}

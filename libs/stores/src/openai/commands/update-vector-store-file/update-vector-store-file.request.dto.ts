import { Check } from '@larder/kernel';
import { IsAttributes } from '../../openai-common.request.dto';

/** `FileUpdateParams`: `attributes` is required (null clears them). */
export class UpdateVectorStoreFileRequestDto {
  @Check('required', 'missing', 'Field required', (v) => v !== undefined)
  @IsAttributes()
  attributes!: Record<string, string | number | boolean> | null;
}

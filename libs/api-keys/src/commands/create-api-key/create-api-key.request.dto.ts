import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, ValidateIf, ValidateNested } from 'class-validator';
import { ScopeDto } from '../../scope.dto';
import { UpdateApiKeyRequestDto } from '../update-api-key/update-api-key.request.dto';

/** `ApiKeyCreateParams`: the updatable fields (`name`, `expires_at`) plus `scope`. */
export class CreateApiKeyRequestDto extends UpdateApiKeyRequestDto {
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ScopeDto)
  scope?: ScopeDto[] | null;
}

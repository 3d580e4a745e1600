import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { ScopeDto } from '../../scope.dto';

/** `ApiKeyCreateParams`. */
export class CreateApiKeyRequestDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name?: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ScopeDto)
  scope?: ScopeDto[] | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsISO8601({ strict: true })
  expires_at?: string | null;
}

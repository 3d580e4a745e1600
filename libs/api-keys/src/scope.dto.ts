import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { SCOPE_METHODS, SCOPE_RESOURCE_TYPES, ScopeMethod } from '@larder/kernel';

export class ScopeDto {
  @IsIn(SCOPE_METHODS)
  method!: ScopeMethod;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsIn(SCOPE_RESOURCE_TYPES)
  resource_type?: string | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(255)
  resource_id?: string | null;
}

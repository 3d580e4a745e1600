import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { Check } from '@larder/kernel';
import { SearchRuleEntryRequestDto } from '../../rules/search-rule-entry.request.dto';

/** `SearchRuleUpdateParams`: a new trigger query, new rules, or both (null or absent: unchanged). */
export class UpdateSearchRuleRequestDto {
  @IsOptional()
  @Check('nonEmpty', 'string_type', 'Input should be a non-empty string', (v) => typeof v === 'string' && !!v.trim())
  query?: string | null;

  @IsOptional()
  @Check('isList', 'list_type', 'Input should be a valid list', (v) => Array.isArray(v))
  @Check(
    'ruleObjects',
    'model_type',
    'Input should be a list of rule objects',
    (v) => !Array.isArray(v) || !v.some(Array.isArray),
  )
  @ValidateNested({ each: true, message: 'Input should be a rule object' })
  @Type(() => SearchRuleEntryRequestDto)
  rules?: SearchRuleEntryRequestDto[] | null;
}

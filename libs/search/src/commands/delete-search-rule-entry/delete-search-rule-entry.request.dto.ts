import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { Check, Required } from '@larder/kernel';
import { SearchRuleEntryRequestDto } from '../../rules/search-rule-entry.request.dto';

/** The body of `DELETE …/rules/{id}/specific`: the one rule entry to remove. */
export class DeleteSearchRuleEntryRequestDto {
  @Required(true)
  @Check('ruleObject', 'model_type', 'Input should be a rule object', (v) => !Array.isArray(v))
  @ValidateNested({ message: 'Input should be a rule object' })
  @Type(() => SearchRuleEntryRequestDto)
  rule!: SearchRuleEntryRequestDto;
}

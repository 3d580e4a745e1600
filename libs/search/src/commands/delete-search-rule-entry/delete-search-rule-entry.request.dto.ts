import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { Required } from '@larder/kernel';
import { SearchRuleEntryRequestDto } from '../../rules/search-rule-entry.request.dto';

/** The body of `DELETE …/rules/{id}/specific`: the one rule entry to remove. */
export class DeleteSearchRuleEntryRequestDto {
  @Required(true)
  @ValidateNested({ message: 'Input should be a rule object' })
  @Type(() => SearchRuleEntryRequestDto)
  rule!: SearchRuleEntryRequestDto;
}

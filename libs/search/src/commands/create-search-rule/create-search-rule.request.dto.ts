import { Transform, Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { Check, Required } from '@larder/kernel';
import { SearchRuleEntryRequestDto } from '../../rules/search-rule-entry.request.dto';

const absent = (v: unknown) => v === undefined || v === null;

/** `SearchRuleCreateParams`: the trigger query and its rules. */
export class CreateSearchRuleRequestDto {
  @Required()
  @Check(
    'nonEmpty',
    'string_type',
    'Input should be a non-empty string',
    (v) => absent(v) || (typeof v === 'string' && !!v.trim()),
  )
  query!: string;

  @Required()
  @Check('isList', 'list_type', 'Input should be a valid list', (v) => absent(v) || Array.isArray(v))
  @Check(
    'ruleObjects',
    'model_type',
    'Input should be a list of rule objects',
    (v) => !Array.isArray(v) || !v.some(Array.isArray),
  )
  @ValidateNested({ each: true, message: 'Input should be a rule object' })
  @Type(() => SearchRuleEntryRequestDto)
  @Transform(({ value }: { value: unknown }) => (value === null ? undefined : value)) // null is absent: one `missing`, no nested error
  rules!: SearchRuleEntryRequestDto[];
}

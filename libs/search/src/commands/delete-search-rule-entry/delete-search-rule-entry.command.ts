import type { Principal } from '@larder/kernel';
import type { SearchRuleEntryInput } from '../../rules/search-rule-entry.input';

export class DeleteSearchRuleEntryCommand {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    readonly ruleId: string,
    readonly rule: SearchRuleEntryInput,
  ) {}
}

import type { Principal } from '@larder/kernel';
import type { SearchRuleEntryInput } from '../../rules/search-rule-entry.input';

export class CreateSearchRuleCommand {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    readonly query: string,
    readonly rules: SearchRuleEntryInput[],
  ) {}
}

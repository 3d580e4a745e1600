import type { Principal } from '@larder/kernel';
import type { SearchRuleEntryInput } from '../../rules/search-rule-entry.input';

export class UpdateSearchRuleCommand {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    readonly ruleId: string,
    /** Absent: unchanged. */
    readonly changes: { query?: string; rules?: SearchRuleEntryInput[] },
  ) {}
}

import type { Principal } from '@larder/kernel';

export class GetSearchRuleQuery {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    readonly ruleId: string,
  ) {}
}

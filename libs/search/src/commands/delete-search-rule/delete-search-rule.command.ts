import type { Principal } from '@larder/kernel';

export class DeleteSearchRuleCommand {
  constructor(
    readonly principal: Principal,
    readonly storeIdentifier: string,
    readonly ruleId: string,
  ) {}
}

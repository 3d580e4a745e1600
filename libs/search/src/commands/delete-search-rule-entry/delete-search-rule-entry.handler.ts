import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreAccess } from '../../store-access';
import { SearchRuleWriter } from '../../rules/search-rule.writer';
import { SearchRuleEntry } from '../../rules/events';
import { DeleteSearchRuleEntryCommand } from './delete-search-rule-entry.command';

export interface SearchRuleEntryDeletedResponse {
  id: string;
  object: 'search_rule';
  deleted_rule: SearchRuleEntry;
  remaining_rules: number;
}

/** Removes one entry equal to the given one (compared without `query` and `store_id`). */
@CommandHandler(DeleteSearchRuleEntryCommand)
export class DeleteSearchRuleEntryHandler implements ICommandHandler<
  DeleteSearchRuleEntryCommand,
  SearchRuleEntryDeletedResponse
> {
  constructor(
    private readonly access: StoreAccess,
    private readonly writer: SearchRuleWriter,
  ) {}

  async execute(c: DeleteSearchRuleEntryCommand): Promise<SearchRuleEntryDeletedResponse> {
    const storeId = await this.access.storeId(c.principal, c.storeIdentifier);
    const { state } = await this.writer.decide(
      {
        type: 'DeleteSearchRuleEntry',
        ruleId: c.ruleId,
        storeId,
        organizationId: c.principal.organizationId,
        rule: c.rule.toEntry({ query: '', storeId }),
      },
      c.principal.apiKeyId,
    );
    return {
      id: c.ruleId,
      object: 'search_rule',
      deleted_rule: c.rule.toEntry({ query: state.query, storeId }),
      remaining_rules: state.rules.length,
    };
  }
}

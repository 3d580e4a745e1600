import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreAccess } from '../../store-access';
import { SearchRuleWriter } from '../../rules/search-rule.writer';
import { DeleteSearchRuleCommand } from './delete-search-rule.command';

export interface SearchRuleDeletedResponse {
  deleted: true;
  object: 'search_rule.deleted';
}

@CommandHandler(DeleteSearchRuleCommand)
export class DeleteSearchRuleHandler implements ICommandHandler<DeleteSearchRuleCommand, SearchRuleDeletedResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly writer: SearchRuleWriter,
  ) {}

  async execute(c: DeleteSearchRuleCommand): Promise<SearchRuleDeletedResponse> {
    const storeId = await this.access.storeId(c.principal, c.storeIdentifier);
    await this.writer.decide(
      { type: 'DeleteSearchRule', ruleId: c.ruleId, storeId, organizationId: c.principal.organizationId },
      c.principal.apiKeyId,
    );
    return { deleted: true, object: 'search_rule.deleted' };
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreAccess } from '../../store-access';
import { SearchRuleWriter } from '../../rules/search-rule.writer';
import { SearchRuleResponse, toSearchRuleResponse } from '../../rules/search-rule.response';
import { UpdateSearchRuleCommand } from './update-search-rule.command';

@CommandHandler(UpdateSearchRuleCommand)
export class UpdateSearchRuleHandler implements ICommandHandler<UpdateSearchRuleCommand, SearchRuleResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly writer: SearchRuleWriter,
  ) {}

  async execute(c: UpdateSearchRuleCommand): Promise<SearchRuleResponse> {
    const storeId = await this.access.storeId(c.principal, c.storeIdentifier);
    const { query } = c.changes;
    const rules = c.changes.rules?.map((r) => r.toEntry({ query: query ?? '', storeId }));
    const decided = await this.writer.decide(
      { type: 'UpdateSearchRule', ruleId: c.ruleId, storeId, organizationId: c.principal.organizationId, query, rules },
      c.principal.apiKeyId,
    );
    return toSearchRuleResponse(await this.writer.rule(decided));
  }
}

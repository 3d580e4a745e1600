import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreAccess } from '../../store-access';
import { SearchRuleWriter } from '../../rules/search-rule.writer';
import { SearchRuleResponse, toSearchRuleResponse } from '../../rules/search-rule.response';
import { CreateSearchRuleCommand } from './create-search-rule.command';

@CommandHandler(CreateSearchRuleCommand)
export class CreateSearchRuleHandler implements ICommandHandler<CreateSearchRuleCommand, SearchRuleResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly writer: SearchRuleWriter,
  ) {}

  async execute(c: CreateSearchRuleCommand): Promise<SearchRuleResponse> {
    const storeId = await this.access.storeId(c.principal, c.storeIdentifier);
    const rules = c.rules.map((r) => r.toEntry({ query: c.query, storeId }));
    const decided = await this.writer.decide(
      {
        type: 'CreateSearchRule',
        ruleId: this.writer.ids.uuid(),
        storeId,
        organizationId: c.principal.organizationId,
        query: c.query,
        rules,
      },
      c.principal.apiKeyId,
    );
    return toSearchRuleResponse(await this.writer.rule(decided));
  }
}

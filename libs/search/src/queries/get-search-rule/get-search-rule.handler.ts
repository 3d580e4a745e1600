import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { StoreAccess } from '../../store-access';
import { isRuleId } from '../../rules/search-rule.writer';
import { SearchRuleResponse, toSearchRuleResponse } from '../../rules/search-rule.response';
import { GetSearchRuleQuery } from './get-search-rule.query';

@QueryHandler(GetSearchRuleQuery)
export class GetSearchRuleHandler implements IQueryHandler<GetSearchRuleQuery, SearchRuleResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly reader: SearchRulesReader,
  ) {}

  async execute(q: GetSearchRuleQuery): Promise<SearchRuleResponse> {
    const storeId = await this.access.storeId(q.principal, q.storeIdentifier);
    const row = isRuleId(q.ruleId) ? await this.reader.get(q.principal.organizationId, storeId, q.ruleId) : null;
    if (!row) throw new NotFoundError(`Search rule ${q.ruleId} not found`);
    return toSearchRuleResponse(row);
  }
}

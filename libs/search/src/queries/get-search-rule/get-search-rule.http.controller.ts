import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute, UuidParam } from '@larder/kernel';
import { SearchRuleResponse } from '../../rules/search-rule.response';
import { GetSearchRuleQuery } from './get-search-rule.query';

@Controller('v1/stores/:store_identifier/rules')
export class GetSearchRuleHttpController {
  constructor(private readonly queries: QueryBus) {}

  @StoreRoute('read', Get(':rule_id'))
  get(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @UuidParam('rule_id') id: string,
  ): Promise<SearchRuleResponse> {
    return this.queries.execute(new GetSearchRuleQuery(p, sid, id));
  }
}

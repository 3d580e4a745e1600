import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute } from '@larder/kernel';
import { SearchRuleResponse } from '../../rules/search-rule.response';
import { CreateSearchRuleCommand } from './create-search-rule.command';
import { CreateSearchRuleRequestDto } from './create-search-rule.request.dto';

/** Search rules: a trigger query whose rules rewrite it and pin results. There is no list operation. */
@Controller('v1/stores/:store_identifier/rules')
export class CreateSearchRuleHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('write', Post(), HttpCode(201))
  create(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Body() body: CreateSearchRuleRequestDto,
  ): Promise<SearchRuleResponse> {
    return this.commands.execute(new CreateSearchRuleCommand(p, sid, body.query, body.rules));
  }
}

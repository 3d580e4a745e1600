import { Body, Controller, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute, UuidParam } from '@larder/kernel';
import { SearchRuleResponse } from '../../rules/search-rule.response';
import { UpdateSearchRuleCommand } from './update-search-rule.command';
import { UpdateSearchRuleRequestDto } from './update-search-rule.request.dto';

@Controller('v1/stores/:store_identifier/rules')
export class UpdateSearchRuleHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('write', Put(':rule_id'))
  update(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @UuidParam('rule_id') id: string,
    @Body() body: UpdateSearchRuleRequestDto,
  ): Promise<SearchRuleResponse> {
    return this.commands.execute(
      new UpdateSearchRuleCommand(p, sid, id, { query: body.query ?? undefined, rules: body.rules ?? undefined }),
    );
  }
}

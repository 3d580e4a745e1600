import { Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute, UuidParam } from '@larder/kernel';
import { DeleteSearchRuleCommand } from './delete-search-rule.command';
import { SearchRuleDeletedResponse } from './delete-search-rule.handler';

@Controller('v1/stores/:store_identifier/rules')
export class DeleteSearchRuleHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('delete', Delete(':rule_id'))
  remove(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @UuidParam('rule_id') id: string,
  ): Promise<SearchRuleDeletedResponse> {
    return this.commands.execute(new DeleteSearchRuleCommand(p, sid, id));
  }
}

import { Body, Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute, UuidParam } from '@larder/kernel';
import { DeleteSearchRuleEntryCommand } from './delete-search-rule-entry.command';
import { DeleteSearchRuleEntryRequestDto } from './delete-search-rule-entry.request.dto';
import { SearchRuleEntryDeletedResponse } from './delete-search-rule-entry.handler';

/** `DELETE …/specific` carries a JSON body: the rule entry to remove. */
@Controller('v1/stores/:store_identifier/rules')
export class DeleteSearchRuleEntryHttpController {
  constructor(private readonly commands: CommandBus) {}

  @StoreRoute('delete', Delete(':rule_id/specific'))
  removeSpecific(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @UuidParam('rule_id') id: string,
    @Body() body: DeleteSearchRuleEntryRequestDto,
  ): Promise<SearchRuleEntryDeletedResponse> {
    return this.commands.execute(new DeleteSearchRuleEntryCommand(p, sid, id, body.rule));
  }
}

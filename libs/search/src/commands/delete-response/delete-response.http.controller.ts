import { Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { CHAT_SCOPE } from '../create-chat-completion/create-chat-completion.http.controller';
import { DeleteResponseCommand } from './delete-response.command';
import type { ResponseDeletedBody } from './delete-response.handler';

/** `DELETE /v1/responses/{id}`. */
@Controller('v1/responses')
export class DeleteResponseHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':response_id')
  @RequireScope(CHAT_SCOPE)
  delete(@CurrentPrincipal() p: Principal, @Param('response_id') id: string): Promise<ResponseDeletedBody> {
    return this.commands.execute(new DeleteResponseCommand(p, id));
  }
}

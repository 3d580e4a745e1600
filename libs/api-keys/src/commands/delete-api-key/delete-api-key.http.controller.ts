import { Controller, Delete } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { DeleteApiKeyCommand } from './delete-api-key.command';
import { ApiKeyDeletedResponse } from './delete-api-key.handler';

@Controller('v1/api-keys')
export class DeleteApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':api_key_id')
  @RequireScope({ method: 'delete', resourceType: 'api_key' })
  remove(@CurrentPrincipal() p: Principal, @UuidParam('api_key_id') id: string): Promise<ApiKeyDeletedResponse> {
    return this.commands.execute(new DeleteApiKeyCommand(p.organizationId, id, p.apiKeyId));
  }
}

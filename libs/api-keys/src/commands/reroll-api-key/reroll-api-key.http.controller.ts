import { Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { ApiKeyCreatedResponse } from '../../api-key.response';
import { RerollApiKeyCommand } from './reroll-api-key.command';

@Controller('v1/api-keys')
export class RerollApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':api_key_id/reroll')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'api_key' })
  reroll(@CurrentPrincipal() p: Principal, @UuidParam('api_key_id') id: string): Promise<ApiKeyCreatedResponse> {
    return this.commands.execute(new RerollApiKeyCommand(p.organizationId, id, p.apiKeyId));
  }
}

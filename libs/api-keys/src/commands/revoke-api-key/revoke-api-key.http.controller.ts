import { Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { ApiKeyResponse } from '../../api-key.response';
import { RevokeApiKeyCommand } from './revoke-api-key.command';

@Controller('v1/api-keys')
export class RevokeApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':api_key_id/revoke')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'api_key' })
  revoke(@CurrentPrincipal() p: Principal, @UuidParam('api_key_id') id: string): Promise<ApiKeyResponse> {
    return this.commands.execute(new RevokeApiKeyCommand(p.organizationId, id, p.apiKeyId));
  }
}

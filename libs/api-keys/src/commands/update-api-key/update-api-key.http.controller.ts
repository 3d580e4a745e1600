import { Body, Controller, Patch } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { ApiKeyResponse } from '../../api-key.response';
import { UpdateApiKeyCommand } from './update-api-key.command';
import { UpdateApiKeyRequestDto } from './update-api-key.request.dto';

@Controller('v1/api-keys')
export class UpdateApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Patch(':api_key_id')
  @RequireScope({ method: 'write', resourceType: 'api_key' })
  update(
    @CurrentPrincipal() p: Principal,
    @UuidParam('api_key_id') id: string,
    @Body() body: UpdateApiKeyRequestDto,
  ): Promise<ApiKeyResponse> {
    const changes: { name?: string; expiresAt?: Date | null } = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.expires_at !== undefined) changes.expiresAt = body.expires_at === null ? null : new Date(body.expires_at);
    return this.commands.execute(new UpdateApiKeyCommand(p.organizationId, id, changes, p.apiKeyId));
  }
}

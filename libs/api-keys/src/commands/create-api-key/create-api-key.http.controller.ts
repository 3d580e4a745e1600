import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { ApiKeyCreatedResponse } from '../../api-key.response';
import { CreateApiKeyCommand } from './create-api-key.command';
import { CreateApiKeyRequestDto } from './create-api-key.request.dto';

@Controller('v1/api-keys')
export class CreateApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'api_key' })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateApiKeyRequestDto): Promise<ApiKeyCreatedResponse> {
    return this.commands.execute(
      new CreateApiKeyCommand(
        p.organizationId,
        body.name ?? 'API Key',
        body.scope ?? null,
        body.expires_at ? new Date(body.expires_at) : null,
        {
          actor: p.apiKeyId,
        },
      ),
    );
  }
}

import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { ApiKeyResponse } from '../../api-key.response';
import { GetApiKeyQuery } from './get-api-key.query';

@Controller('v1/api-keys')
export class GetApiKeyHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':api_key_id')
  @RequireScope({ method: 'read', resourceType: 'api_key' })
  get(@CurrentPrincipal() p: Principal, @UuidParam('api_key_id') id: string): Promise<ApiKeyResponse> {
    return this.queries.execute(new GetApiKeyQuery(p.organizationId, id));
  }
}

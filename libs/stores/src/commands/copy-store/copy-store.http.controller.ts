import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { StoreResponse } from '../../store.response';
import { CopyStoreCommand } from './copy-store.command';
import { CopyStoreRequestDto } from './copy-store.request.dto';

@Controller('v1/stores')
export class CopyStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  /** `create` here; `read` on the source is checked by the handler against the resolved store id. */
  @Post(':store_identifier/copy')
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'store' })
  copy(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') id: string,
    @Body() body: CopyStoreRequestDto,
  ): Promise<StoreResponse> {
    return this.commands.execute(new CopyStoreCommand(p.organizationId, p.apiKeyId, p.scope, id, body));
  }
}

import { Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AdminOnly, CurrentPrincipal, Principal } from '@larder/kernel';
import { ReingestStoreCommand } from './reingest-store.command';
import { ReingestStoreResponse } from './reingest-store.handler';
import { ReingestStorePathDto, ReingestStoreQueryDto } from './reingest-store.request.dto';

/** Admin re-ingestion: administrators only. */
@Controller('v1/admin/stores')
export class ReingestStoreHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':organization_id/:store_identifier/reingest')
  @HttpCode(200)
  @AdminOnly()
  reingest(
    @CurrentPrincipal() p: Principal,
    @Param() path: ReingestStorePathDto,
    @Query() query: ReingestStoreQueryDto,
  ): Promise<ReingestStoreResponse> {
    return this.commands.execute(
      new ReingestStoreCommand(
        { organizationId: p.organizationId, apiKeyId: p.apiKeyId, operator: p.operator },
        path.organization_id.toLowerCase(),
        path.store_identifier,
        query.statuses ?? null,
        query.billable === true,
      ),
    );
  }
}

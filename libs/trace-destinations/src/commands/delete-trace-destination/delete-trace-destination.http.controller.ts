import { Controller, Delete } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { DeleteTraceDestinationCommand } from './delete-trace-destination.command';
import { TraceDestinationDeletedResponse } from './delete-trace-destination.handler';

@Controller('v1/trace-destinations')
export class DeleteTraceDestinationHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':trace_destination_id')
  @RequireScope({ method: 'delete', resourceType: 'trace_destination', resourceIdParam: 'trace_destination_id' })
  remove(
    @CurrentPrincipal() p: Principal,
    @UuidParam('trace_destination_id') id: string,
  ): Promise<TraceDestinationDeletedResponse> {
    return this.commands.execute(new DeleteTraceDestinationCommand(p.organizationId, p.apiKeyId, id));
  }
}

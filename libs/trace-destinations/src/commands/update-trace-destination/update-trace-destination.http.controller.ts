import { Body, Controller, Patch } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { TraceDestinationResponse } from '../../trace-destination.response';
import { UpdateTraceDestinationCommand } from './update-trace-destination.command';
import { UpdateTraceDestinationRequestDto } from './update-trace-destination.request.dto';

@Controller('v1/trace-destinations')
export class UpdateTraceDestinationHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Patch(':trace_destination_id')
  @RequireScope({ method: 'write', resourceType: 'trace_destination', resourceIdParam: 'trace_destination_id' })
  update(
    @CurrentPrincipal() p: Principal,
    @UuidParam('trace_destination_id') id: string,
    @Body() body: UpdateTraceDestinationRequestDto,
  ): Promise<TraceDestinationResponse> {
    return this.commands.execute(new UpdateTraceDestinationCommand(p.organizationId, p.apiKeyId, id, body));
  }
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { TraceDestinationResponse } from '../../trace-destination.response';
import { CreateTraceDestinationCommand } from './create-trace-destination.command';
import { CreateTraceDestinationRequestDto } from './create-trace-destination.request.dto';

@Controller('v1/trace-destinations')
export class CreateTraceDestinationHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'trace_destination' })
  create(
    @CurrentPrincipal() p: Principal,
    @Body() body: CreateTraceDestinationRequestDto,
  ): Promise<TraceDestinationResponse> {
    return this.commands.execute(new CreateTraceDestinationCommand(p.organizationId, p.apiKeyId, body));
  }
}

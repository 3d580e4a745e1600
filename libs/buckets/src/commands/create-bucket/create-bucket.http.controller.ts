import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { BucketResponse } from '../../bucket.response';
import { CreateBucketCommand } from './create-bucket.command';
import { CreateBucketRequestDto } from './create-bucket.request.dto';

@Controller('v1/buckets')
export class CreateBucketHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'bucket' })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateBucketRequestDto): Promise<BucketResponse> {
    return this.commands.execute(new CreateBucketCommand(p.organizationId, p.apiKeyId, body));
  }
}

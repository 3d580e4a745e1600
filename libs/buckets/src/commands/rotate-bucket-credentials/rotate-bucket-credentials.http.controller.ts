import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { BucketResponse } from '../../bucket.response';
import { RotateBucketCredentialsCommand } from './rotate-bucket-credentials.command';
import { RotateBucketCredentialsRequestDto } from './rotate-bucket-credentials.request.dto';

@Controller('v1/buckets')
export class RotateBucketCredentialsHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':bucket_id/credentials')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'bucket', resourceIdParam: 'bucket_id' })
  rotate(
    @CurrentPrincipal() p: Principal,
    @UuidParam('bucket_id') id: string,
    @Body() body: RotateBucketCredentialsRequestDto,
  ): Promise<BucketResponse> {
    return this.commands.execute(
      new RotateBucketCredentialsCommand(p.organizationId, p.apiKeyId, id, body.credentials),
    );
  }
}

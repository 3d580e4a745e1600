import { Controller, Delete } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope, UuidParam } from '@larder/kernel';
import { DeleteBucketCommand } from './delete-bucket.command';

@Controller('v1/buckets')
export class DeleteBucketHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':bucket_id')
  @RequireScope({ method: 'delete', resourceType: 'bucket', resourceIdParam: 'bucket_id' })
  remove(
    @CurrentPrincipal() p: Principal,
    @UuidParam('bucket_id') id: string,
  ): Promise<{ id: string; deleted: true; object: 'bucket' }> {
    return this.commands.execute(new DeleteBucketCommand(p.organizationId, p.apiKeyId, id));
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BucketsWriter } from '../../buckets.writer';
import { DeleteBucketCommand } from './delete-bucket.command';

/** Refused (409) while a store keeps its files in the bucket; its sealed keys are discarded once its stores' objects are gone. */
@CommandHandler(DeleteBucketCommand)
export class DeleteBucketHandler implements ICommandHandler<
  DeleteBucketCommand,
  { id: string; deleted: true; object: 'bucket' }
> {
  constructor(private readonly writer: BucketsWriter) {}

  execute(c: DeleteBucketCommand): Promise<{ id: string; deleted: true; object: 'bucket' }> {
    return this.writer.remove(c.organizationId, c.actor, c.bucketId);
  }
}

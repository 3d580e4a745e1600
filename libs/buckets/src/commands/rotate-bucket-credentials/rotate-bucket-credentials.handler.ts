import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BucketsWriter } from '../../buckets.writer';
import { BucketResponse, toBucketResponse } from '../../bucket.response';
import { RotateBucketCredentialsCommand } from './rotate-bucket-credentials.command';

/** access_key buckets only: the new keys are probed against the bucket's own identity, then `credentials_version` + 1. */
@CommandHandler(RotateBucketCredentialsCommand)
export class RotateBucketCredentialsHandler implements ICommandHandler<RotateBucketCredentialsCommand, BucketResponse> {
  constructor(private readonly writer: BucketsWriter) {}

  async execute(c: RotateBucketCredentialsCommand): Promise<BucketResponse> {
    return toBucketResponse(await this.writer.rotate(c.organizationId, c.actor, c.bucketId, c.credentials));
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BucketsWriter } from '../../buckets.writer';
import { BucketResponse, toBucketResponse } from '../../bucket.response';
import { CreateBucketCommand } from './create-bucket.command';

/** Probes the bucket (reach, write, delete; with assume_role after assuming the role), then stores it; a failed probe stores nothing. */
@CommandHandler(CreateBucketCommand)
export class CreateBucketHandler implements ICommandHandler<CreateBucketCommand, BucketResponse> {
  constructor(private readonly writer: BucketsWriter) {}

  async execute(c: CreateBucketCommand): Promise<BucketResponse> {
    return toBucketResponse(await this.writer.create(c.organizationId, c.actor, c.input));
  }
}

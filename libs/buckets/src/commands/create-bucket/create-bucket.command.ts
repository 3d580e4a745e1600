import type { CreateBucketInput } from '../../buckets.writer';

export class CreateBucketCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly input: CreateBucketInput,
  ) {}
}

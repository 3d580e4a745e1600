export class DeleteBucketCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly bucketId: string,
  ) {}
}

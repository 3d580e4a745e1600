export class GetBucketQuery {
  constructor(
    readonly organizationId: string,
    readonly bucketId: string,
  ) {}
}

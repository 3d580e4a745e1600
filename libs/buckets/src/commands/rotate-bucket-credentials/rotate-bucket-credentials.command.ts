export class RotateBucketCredentialsCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly bucketId: string,
    /** The `credentials` field as sent (checked by the writer without echoing it). */
    readonly credentials: unknown,
  ) {}
}

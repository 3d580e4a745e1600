export class CompleteUploadCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly uploadId: string,
    readonly parts: Array<{ partNumber: number; etag: string }>,
  ) {}
}

export class CreateUploadCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly filename: string,
    readonly fileSize: number,
    readonly mimeType: string,
    readonly partCount: number,
    /** Base URL of the request, for part URLs Larder serves itself. */
    readonly baseUrl: string,
    /** The created file's description (`q` of the file list matches it). */
    readonly description: string | null = null,
  ) {}
}

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
  ) {}
}

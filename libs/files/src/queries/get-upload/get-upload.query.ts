export class GetUploadQuery {
  constructor(
    readonly organizationId: string,
    readonly uploadId: string,
    /** Base URL of the request, for part URLs Larder serves itself. */
    readonly baseUrl: string,
  ) {}
}

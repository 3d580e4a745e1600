export class DownloadFileQuery {
  constructor(
    readonly organizationId: string,
    readonly fileId: string,
  ) {}
}

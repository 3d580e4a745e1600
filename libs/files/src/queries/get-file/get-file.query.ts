export class GetFileQuery {
  constructor(
    readonly organizationId: string,
    readonly fileId: string,
  ) {}
}

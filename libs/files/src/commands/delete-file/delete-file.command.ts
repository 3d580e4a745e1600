export class DeleteFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly fileId: string,
  ) {}
}

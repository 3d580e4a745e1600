export class DeleteStoreFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** Store id or name. */
    readonly storeIdentifier: string,
    /** File id, external id or file name. */
    readonly fileIdentifier: string,
  ) {}
}

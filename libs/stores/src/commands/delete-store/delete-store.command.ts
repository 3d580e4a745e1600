export class DeleteStoreCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** Store id or name. */
    readonly storeIdentifier: string,
  ) {}
}

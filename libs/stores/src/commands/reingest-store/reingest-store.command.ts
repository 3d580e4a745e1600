export class ReingestStoreCommand {
  constructor(
    /** The calling admin key: an operator (a root-organization admin key) acts on any organization, any other admin key on its own. */
    readonly caller: { organizationId: string; apiKeyId: string; operator: boolean },
    /** The organization whose store is re-ingested. */
    readonly organizationId: string,
    /** Store id or name. */
    readonly storeIdentifier: string,
    /** Only store files in these statuses (null: all). */
    readonly statuses: string[] | null,
    readonly billable: boolean,
  ) {}
}

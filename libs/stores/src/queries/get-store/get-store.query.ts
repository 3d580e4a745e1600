export class GetStoreQuery {
  constructor(
    readonly organizationId: string,
    /** Store id or name. */
    readonly storeIdentifier: string,
  ) {}
}

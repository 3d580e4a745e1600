export class ListStoreCostsQuery {
  constructor(readonly organizationId: string) {}
}

export class ListUploadsQuery {
  constructor(readonly organizationId: string) {}
}

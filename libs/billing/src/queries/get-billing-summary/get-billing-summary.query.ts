export class GetBillingSummaryQuery {
  constructor(readonly organizationId: string) {}
}

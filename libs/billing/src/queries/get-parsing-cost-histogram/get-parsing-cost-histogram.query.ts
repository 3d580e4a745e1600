export class GetParsingCostHistogramQuery {
  constructor(readonly organizationId: string) {}
}

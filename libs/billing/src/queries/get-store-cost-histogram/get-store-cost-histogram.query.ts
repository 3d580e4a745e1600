export class GetStoreCostHistogramQuery {
  constructor(
    readonly organizationId: string,
    readonly storeId: string,
  ) {}
}

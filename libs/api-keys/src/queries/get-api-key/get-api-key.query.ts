export class GetApiKeyQuery {
  constructor(
    readonly organizationId: string,
    readonly apiKeyId: string,
  ) {}
}

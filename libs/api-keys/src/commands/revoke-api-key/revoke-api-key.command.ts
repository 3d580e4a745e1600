export class RevokeApiKeyCommand {
  constructor(
    readonly organizationId: string,
    readonly apiKeyId: string,
    readonly actor: string,
  ) {}
}

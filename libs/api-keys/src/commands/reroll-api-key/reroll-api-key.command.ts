export class RerollApiKeyCommand {
  constructor(
    readonly organizationId: string,
    readonly apiKeyId: string,
    readonly actor: string,
  ) {}
}

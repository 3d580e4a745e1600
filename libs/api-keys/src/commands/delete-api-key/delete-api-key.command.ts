export class DeleteApiKeyCommand {
  constructor(
    readonly organizationId: string,
    readonly apiKeyId: string,
    readonly actor: string,
  ) {}
}

export class UpdateApiKeyCommand {
  constructor(
    readonly organizationId: string,
    readonly apiKeyId: string,
    readonly changes: { name?: string; expiresAt?: Date | null },
    readonly actor: string,
  ) {}
}

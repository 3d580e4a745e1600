import type { ScopeEntry } from '@larder/kernel';

export class CreateApiKeyCommand {
  constructor(
    readonly organizationId: string,
    readonly name: string,
    readonly scope: ScopeEntry[] | null,
    readonly expiresAt: Date | null,
    readonly options: { admin?: boolean; actor?: string; apiKeyId?: string; secret?: string } = {},
  ) {}
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { ApiKeyWriter } from '../../api-key.writer';
import { ApiKeyResponse } from '../../api-key.response';
import { RevokeApiKeyCommand } from './revoke-api-key.command';

/** Revoked keys fail with 401 from the moment this returns; `expires_at` shows the revocation time. */
@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand, ApiKeyResponse> {
  constructor(private readonly writer: ApiKeyWriter) {}

  async execute(c: RevokeApiKeyCommand): Promise<ApiKeyResponse> {
    const { response } = await this.writer.decide(
      { type: 'RevokeApiKey', apiKeyId: c.apiKeyId, organizationId: c.organizationId },
      c.actor,
    );
    if (!response) throw new NotFoundError(`API key ${c.apiKeyId} not found`);
    return response;
  }
}

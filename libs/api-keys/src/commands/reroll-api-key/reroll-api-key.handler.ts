import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { ApiKeyWriter } from '../../api-key.writer';
import { ApiKeyCreatedResponse } from '../../api-key.response';
import { hashSecret, newSecret, redact } from '../../secrets';
import { RerollApiKeyCommand } from './reroll-api-key.command';

/** The old secret stops working before this returns: the lookup read model has caught up. */
@CommandHandler(RerollApiKeyCommand)
export class RerollApiKeyHandler implements ICommandHandler<RerollApiKeyCommand, ApiKeyCreatedResponse> {
  constructor(private readonly writer: ApiKeyWriter) {}

  async execute(c: RerollApiKeyCommand): Promise<ApiKeyCreatedResponse> {
    const secret = newSecret(this.writer.ids);
    const { response } = await this.writer.decide(
      {
        type: 'RerollApiKey',
        apiKeyId: c.apiKeyId,
        organizationId: c.organizationId,
        secretHash: hashSecret(secret),
        redactedValue: redact(secret),
      },
      c.actor,
    );
    if (!response) throw new NotFoundError(`API key ${c.apiKeyId} not found`);
    return { ...response, value: secret };
  }
}

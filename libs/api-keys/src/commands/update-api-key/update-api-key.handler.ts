import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { ApiKeyWriter } from '../../api-key.writer';
import { ApiKeyResponse } from '../../api-key.response';
import { UpdateApiKeyCommand } from './update-api-key.command';

@CommandHandler(UpdateApiKeyCommand)
export class UpdateApiKeyHandler implements ICommandHandler<UpdateApiKeyCommand, ApiKeyResponse> {
  constructor(private readonly writer: ApiKeyWriter) {}

  async execute(c: UpdateApiKeyCommand): Promise<ApiKeyResponse> {
    const { response } = await this.writer.decide(
      {
        type: 'UpdateApiKey',
        apiKeyId: c.apiKeyId,
        organizationId: c.organizationId,
        name: c.changes.name,
        expiresAt: c.changes.expiresAt,
      },
      c.actor,
    );
    if (!response) throw new NotFoundError(`API key ${c.apiKeyId} not found`);
    return response;
  }
}

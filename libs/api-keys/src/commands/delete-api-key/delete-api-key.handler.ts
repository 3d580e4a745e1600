import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ApiKeyWriter } from '../../api-key.writer';
import { DeleteApiKeyCommand } from './delete-api-key.command';

export interface ApiKeyDeletedResponse {
  id: string;
  deleted: true;
  object: 'api_key';
}

@CommandHandler(DeleteApiKeyCommand)
export class DeleteApiKeyHandler implements ICommandHandler<DeleteApiKeyCommand, ApiKeyDeletedResponse> {
  constructor(private readonly writer: ApiKeyWriter) {}

  async execute(c: DeleteApiKeyCommand): Promise<ApiKeyDeletedResponse> {
    await this.writer.decide({ type: 'DeleteApiKey', apiKeyId: c.apiKeyId, organizationId: c.organizationId }, c.actor);
    return { id: c.apiKeyId, deleted: true, object: 'api_key' };
  }
}

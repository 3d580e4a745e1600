import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { ApiKeyResponse, toApiKeyResponse } from '../../api-key.response';
import { GetApiKeyQuery } from './get-api-key.query';

@QueryHandler(GetApiKeyQuery)
export class GetApiKeyHandler implements IQueryHandler<GetApiKeyQuery, ApiKeyResponse> {
  constructor(private readonly reader: ApiKeysReader) {}

  async execute(q: GetApiKeyQuery): Promise<ApiKeyResponse> {
    const row = await this.reader.get(q.organizationId, q.apiKeyId);
    if (!row) throw new NotFoundError(`API key ${q.apiKeyId} not found`);
    return toApiKeyResponse(row);
  }
}

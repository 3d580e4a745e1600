import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { LimitOffsetPage, paginateByOffset } from '@larder/kernel';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { ApiKeyResponse, toApiKeyResponse } from '../../api-key.response';
import { ListApiKeysQuery } from './list-api-keys.query';

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery, LimitOffsetPage<ApiKeyResponse>> {
  constructor(private readonly reader: ApiKeysReader) {}

  execute(q: ListApiKeysQuery): Promise<LimitOffsetPage<ApiKeyResponse>> {
    return paginateByOffset({ limit: q.limit, offset: q.offset }, async ({ limit, offset }) => {
      const { rows, total } = await this.reader.list(q.organizationId, limit, offset);
      return { rows: rows.map(toApiKeyResponse), total };
    });
  }
}

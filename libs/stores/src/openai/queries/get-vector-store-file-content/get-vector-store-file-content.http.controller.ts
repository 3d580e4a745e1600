import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { GetVectorStoreFileContentQuery } from './get-vector-store-file-content.query';
import type { VectorStoreFileContentResponse } from './get-vector-store-file-content.handler';

@Controller('v1/vector_stores/:vector_store_id/files')
export class GetVectorStoreFileContentHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** `read` on the store: content, as a store file's `content_url` needs. */
  @Get(':file_id/content')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  content(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
  ): Promise<VectorStoreFileContentResponse> {
    return this.queries.execute(new GetVectorStoreFileContentQuery(p.organizationId, id, fileId));
  }
}

import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, IdCursorPage, Principal, RequireScope } from '@larder/kernel';
import { VectorStoreFileResponse } from '../../vector-store.response';
import { OpenAiFileListRequestDto } from '../../openai-common.request.dto';
import { ListVectorStoreFilesQuery } from './list-vector-store-files.query';

@Controller('v1/vector_stores/:vector_store_id')
export class ListVectorStoreFilesHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('files')
  @RequireScope({ method: 'list', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  list(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Query() query: OpenAiFileListRequestDto,
  ): Promise<IdCursorPage<VectorStoreFileResponse>> {
    return this.queries.execute(new ListVectorStoreFilesQuery(p.organizationId, id, query, query.filter ?? null));
  }

  @Get('file_batches/:batch_id/files')
  @RequireScope({ method: 'list', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  listOfBatch(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
    @Query() query: OpenAiFileListRequestDto,
  ): Promise<IdCursorPage<VectorStoreFileResponse>> {
    return this.queries.execute(
      new ListVectorStoreFilesQuery(p.organizationId, id, query, query.filter ?? null, batchId),
    );
  }
}

import { Controller, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal } from '@larder/kernel';
import { VectorStoreFileResponse } from '../../vector-store.response';
import { PolledGet } from '../../polled-get';
import { GetVectorStoreFileQuery } from './get-vector-store-file.query';

@Controller('v1/vector_stores/:vector_store_id/files')
export class GetVectorStoreFileHttpController {
  constructor(private readonly queries: QueryBus) {}

  @PolledGet(':file_id')
  get(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
  ): Promise<VectorStoreFileResponse> {
    return this.queries.execute(new GetVectorStoreFileQuery(p.organizationId, id, fileId));
  }
}

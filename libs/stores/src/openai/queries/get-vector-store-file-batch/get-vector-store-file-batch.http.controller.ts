import { Controller, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal } from '@larder/kernel';
import { VectorStoreFileBatchResponse } from '../../vector-store.response';
import { PolledGet } from '../../polled-get';
import { GetVectorStoreFileBatchQuery } from './get-vector-store-file-batch.query';

@Controller('v1/vector_stores/:vector_store_id/file_batches')
export class GetVectorStoreFileBatchHttpController {
  constructor(private readonly queries: QueryBus) {}

  @PolledGet(':batch_id')
  get(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
  ): Promise<VectorStoreFileBatchResponse> {
    return this.queries.execute(new GetVectorStoreFileBatchQuery(p.organizationId, id, batchId));
  }
}

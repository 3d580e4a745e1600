import { Controller, Get, Param, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { OPENAI_POLL_AFTER_MS, VectorStoreFileBatchResponse } from '../../vector-store.response';
import { GetVectorStoreFileBatchQuery } from './get-vector-store-file-batch.query';

@Controller('v1/vector_stores/:vector_store_id/file_batches')
export class GetVectorStoreFileBatchHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** `openai-poll-after-ms` tells `fileBatches.createAndPoll` when to ask again. */
  @Get(':batch_id')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  async get(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('batch_id') batchId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VectorStoreFileBatchResponse> {
    const b: VectorStoreFileBatchResponse = await this.queries.execute(
      new GetVectorStoreFileBatchQuery(p.organizationId, id, batchId),
    );
    if (b.status === 'in_progress') res.setHeader('openai-poll-after-ms', String(OPENAI_POLL_AFTER_MS));
    return b;
  }
}

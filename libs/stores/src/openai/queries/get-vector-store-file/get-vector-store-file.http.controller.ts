import { Controller, Get, Param, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { OPENAI_POLL_AFTER_MS, VectorStoreFileResponse } from '../../vector-store.response';
import { GetVectorStoreFileQuery } from './get-vector-store-file.query';

@Controller('v1/vector_stores/:vector_store_id/files')
export class GetVectorStoreFileHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** `openai-poll-after-ms` tells the client's pollers (`uploadAndPoll`, `createAndPoll`) when to ask again. */
  @Get(':file_id')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'vector_store_id' })
  async get(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Param('file_id') fileId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VectorStoreFileResponse> {
    const f: VectorStoreFileResponse = await this.queries.execute(
      new GetVectorStoreFileQuery(p.organizationId, id, fileId),
    );
    if (f.status === 'in_progress') res.setHeader('openai-poll-after-ms', String(OPENAI_POLL_AFTER_MS));
    return f;
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFileBatchesWriter } from '../../../store-file-batches.writer';
import { toVectorStoreFileBatch, VectorStoreFileBatchResponse } from '../../vector-store.response';
import { CancelVectorStoreFileBatchCommand } from './cancel-vector-store-file-batch.command';

/** Cancels the batch's files still waiting or in ingestion (they stay, `cancelled`); finished files keep their state. Cancelling twice is a no-op. */
@CommandHandler(CancelVectorStoreFileBatchCommand)
export class CancelVectorStoreFileBatchHandler implements ICommandHandler<
  CancelVectorStoreFileBatchCommand,
  VectorStoreFileBatchResponse
> {
  constructor(private readonly batches: StoreFileBatchesWriter) {}

  async execute(c: CancelVectorStoreFileBatchCommand): Promise<VectorStoreFileBatchResponse> {
    return toVectorStoreFileBatch(await this.batches.cancel(c.organizationId, c.actor, c.vectorStoreId, c.batchId));
  }
}

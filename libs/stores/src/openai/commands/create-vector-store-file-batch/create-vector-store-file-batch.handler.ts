import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AttachAuthority } from '../../../authority';
import { IngestionWorker } from '../../../ingestion/ingestion.worker';
import { BatchFileInput, StoreFileBatchesWriter } from '../../../store-file-batches.writer';
import { chunkingOf } from '../../openai-common.request.dto';
import { toVectorStoreFileBatch, VectorStoreFileBatchResponse } from '../../vector-store.response';
import { CreateVectorStoreFileBatchCommand } from './create-vector-store-file-batch.command';

/** Records the batch, then attaches each file as a single attach does; `files[i]` settings win over the shared ones. */
@CommandHandler(CreateVectorStoreFileBatchCommand)
export class CreateVectorStoreFileBatchHandler implements ICommandHandler<
  CreateVectorStoreFileBatchCommand,
  VectorStoreFileBatchResponse
> {
  constructor(
    private readonly batches: StoreFileBatchesWriter,
    private readonly authority: AttachAuthority,
    private readonly worker: IngestionWorker,
  ) {}

  async execute({
    organizationId,
    actor,
    scope,
    vectorStoreId,
    input,
  }: CreateVectorStoreFileBatchCommand): Promise<VectorStoreFileBatchResponse> {
    const shared = { attributes: input.attributes, chunking: chunkingOf(input.chunking_strategy) };
    const files: BatchFileInput[] = input.files
      ? input.files.map((f) => ({
          file_id: f.file_id,
          ...((f.attributes ?? shared.attributes) !== undefined ? { metadata: f.attributes ?? shared.attributes } : {}),
          chunking: chunkingOf(f.chunking_strategy) ?? shared.chunking,
        }))
      : (input.file_ids ?? []).map((file_id) => ({
          file_id,
          ...(shared.attributes !== undefined ? { metadata: shared.attributes } : {}),
          chunking: shared.chunking,
        }));
    for (const f of files) await this.authority.assertMayAttach(scope, actor, organizationId, f.file_id);
    const batch = await this.batches.create(organizationId, actor, vectorStoreId, files, (i) =>
      input.files ? ['body', 'files', i, 'file_id'] : ['body', 'file_ids', i],
    );
    this.worker.nudge();
    return toVectorStoreFileBatch(batch);
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../../stores.writer';
import { AttachAuthority } from '../../../authority';
import { IngestionWorker } from '../../../ingestion/ingestion.worker';
import { chunkingOf } from '../../openai-common.request.dto';
import { toVectorStore, VectorStoreResponse } from '../../vector-store.response';
import { CreateVectorStoreCommand } from './create-vector-store.command';

/**
 * A store created through OpenAI's API: the free-text `name` is its display name and its identifier
 * is derived from it (`derivedStoreName`); a static `chunking_strategy` becomes the store's chunk size.
 * The same `StoresWriter.create` as `POST /v1/stores`, so it is one store for both APIs.
 */
@CommandHandler(CreateVectorStoreCommand)
export class CreateVectorStoreHandler implements ICommandHandler<CreateVectorStoreCommand, VectorStoreResponse> {
  constructor(
    private readonly writer: StoresWriter,
    private readonly authority: AttachAuthority,
    private readonly worker: IngestionWorker,
  ) {}

  async execute({ organizationId, actor, scope, input }: CreateVectorStoreCommand): Promise<VectorStoreResponse> {
    for (const fileId of input.file_ids ?? [])
      await this.authority.assertMayAttach(scope, actor, organizationId, fileId);
    const chunking = chunkingOf(input.chunking_strategy);
    const row = await this.writer.create(organizationId, actor, {
      display_name: input.name || null,
      description: input.description ?? null,
      metadata: input.metadata ?? null,
      expires_after: input.expires_after ?? null,
      file_ids: input.file_ids ?? null,
      config: chunking ? { chunking } : null,
    });
    if (input.file_ids?.length) this.worker.nudge();
    return toVectorStore(row);
  }
}

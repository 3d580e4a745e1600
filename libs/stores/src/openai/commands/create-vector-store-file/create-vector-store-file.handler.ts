import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoreFileAttacher } from '../../../commands/add-store-file/store-file-attacher';
import { AttachAuthority } from '../../../authority';
import { IngestionWorker } from '../../../ingestion/ingestion.worker';
import { chunkingOf } from '../../openai-common.request.dto';
import { toVectorStoreFile, VectorStoreFileResponse } from '../../vector-store.response';
import { CreateVectorStoreFileCommand } from './create-vector-store-file.command';

/** Attaches a file as `POST /v1/stores/{id}/files` does (an upsert), its `attributes` as the store file's metadata. */
@CommandHandler(CreateVectorStoreFileCommand)
export class CreateVectorStoreFileHandler implements ICommandHandler<
  CreateVectorStoreFileCommand,
  VectorStoreFileResponse
> {
  constructor(
    private readonly attacher: StoreFileAttacher,
    private readonly authority: AttachAuthority,
    private readonly worker: IngestionWorker,
  ) {}

  async execute({
    organizationId,
    actor,
    scope,
    vectorStoreId,
    input,
  }: CreateVectorStoreFileCommand): Promise<VectorStoreFileResponse> {
    await this.authority.assertMayAttach(scope, actor, organizationId, input.file_id);
    const chunking = chunkingOf(input.chunking_strategy);
    const f = await this.attacher.add(organizationId, actor, vectorStoreId, {
      file_id: input.file_id,
      ...(input.attributes !== undefined ? { metadata: input.attributes } : {}),
      ...(chunking ? { chunking } : {}),
    });
    this.worker.nudge();
    return toVectorStoreFile(f);
  }
}

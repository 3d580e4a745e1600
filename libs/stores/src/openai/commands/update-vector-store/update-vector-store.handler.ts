import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../../stores.writer';
import { toVectorStore, VectorStoreResponse } from '../../vector-store.response';
import { UpdateVectorStoreCommand } from './update-vector-store.command';

/** A rename changes the display name only: the store's identifier (its Mixedbread `name`) stays, so nothing addressing it breaks. */
@CommandHandler(UpdateVectorStoreCommand)
export class UpdateVectorStoreHandler implements ICommandHandler<UpdateVectorStoreCommand, VectorStoreResponse> {
  constructor(private readonly writer: StoresWriter) {}

  async execute({
    organizationId,
    actor,
    vectorStoreId,
    input,
  }: UpdateVectorStoreCommand): Promise<VectorStoreResponse> {
    const row = await this.writer.update(organizationId, actor, vectorStoreId, {
      ...(input.name !== undefined ? { display_name: input.name || null } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      ...(input.expires_after !== undefined ? { expires_after: input.expires_after } : {}),
    });
    return toVectorStore(row);
  }
}

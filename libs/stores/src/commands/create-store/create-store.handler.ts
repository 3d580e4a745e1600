import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../stores.writer';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { assertMayAttachFile } from '../../authority';
import { CreateStoreCommand } from './create-store.command';

/** Claims the name, appends `StoreCreated`, then attaches `file_ids` (each needs `read` on the file). */
@CommandHandler(CreateStoreCommand)
export class CreateStoreHandler implements ICommandHandler<CreateStoreCommand, StoreResponse> {
  constructor(private readonly writer: StoresWriter) {}

  async execute(c: CreateStoreCommand): Promise<StoreResponse> {
    for (const fileId of c.input.file_ids ?? []) assertMayAttachFile(c.scope, fileId);
    return toStoreResponse(await this.writer.create(c.organizationId, c.actor, c.input));
  }
}

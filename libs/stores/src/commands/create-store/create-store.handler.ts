import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../stores.writer';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { AttachAuthority } from '../../authority';
import { CreateStoreCommand } from './create-store.command';

/** Claims the name, appends `StoreCreated`, then attaches `file_ids` (each needs `read` on the file, as attaching does). */
@CommandHandler(CreateStoreCommand)
export class CreateStoreHandler implements ICommandHandler<CreateStoreCommand, StoreResponse> {
  constructor(
    private readonly writer: StoresWriter,
    private readonly authority: AttachAuthority,
  ) {}

  async execute(c: CreateStoreCommand): Promise<StoreResponse> {
    for (const fileId of c.input.file_ids ?? [])
      await this.authority.assertMayAttach(c.scope, c.actor, c.organizationId, fileId);
    return toStoreResponse(await this.writer.create(c.organizationId, c.actor, c.input));
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../stores.writer';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { UpdateStoreCommand } from './update-store.command';

/** A rename claims the new name before `StoreUpdated` and frees the old one after it. */
@CommandHandler(UpdateStoreCommand)
export class UpdateStoreHandler implements ICommandHandler<UpdateStoreCommand, StoreResponse> {
  constructor(private readonly writer: StoresWriter) {}

  async execute(c: UpdateStoreCommand): Promise<StoreResponse> {
    return toStoreResponse(await this.writer.update(c.organizationId, c.actor, c.storeIdentifier, c.input));
  }
}

import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresWriter } from '../../stores.writer';
import { DeleteStoreCommand } from './delete-store.command';

export interface StoreDeletedResponse {
  id: string;
  deleted: true;
  object: 'store';
}

/** `StoreDeleted` removes the store's files and chunks (projections); the name is freed after it. */
@CommandHandler(DeleteStoreCommand)
export class DeleteStoreHandler implements ICommandHandler<DeleteStoreCommand, StoreDeletedResponse> {
  constructor(private readonly writer: StoresWriter) {}

  execute(c: DeleteStoreCommand): Promise<StoreDeletedResponse> {
    return this.writer.remove(c.organizationId, c.actor, c.storeIdentifier);
  }
}

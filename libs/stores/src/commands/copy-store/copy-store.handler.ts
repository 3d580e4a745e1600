import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { StoresWriter } from '../../stores.writer';
import { StoreResponse, toStoreResponse } from '../../store.response';
import { assertMayReadStore } from '../../authority';
import { CopyStoreCommand } from './copy-store.command';

/**
 * Creates the target and records `StoreCopyStarted` on it; the store-copy reactor copies the files.
 * A copy reads the source (its files, description and metadata), so it needs `read` on the source,
 * checked against the resolved store id, besides `create` (the route's scope).
 */
@CommandHandler(CopyStoreCommand)
export class CopyStoreHandler implements ICommandHandler<CopyStoreCommand, StoreResponse> {
  constructor(
    private readonly writer: StoresWriter,
    private readonly stores: StoresReader,
  ) {}

  async execute(c: CopyStoreCommand): Promise<StoreResponse> {
    if (c.scope !== null) {
      // an unknown identifier is refused like an unreadable one: a scoped key learns nothing from it
      const source = await this.stores.resolve(c.organizationId, c.storeIdentifier);
      assertMayReadStore(c.scope, source?.id ?? c.storeIdentifier);
    }
    return toStoreResponse(await this.writer.copy(c.organizationId, c.actor, c.storeIdentifier, c.input));
  }
}

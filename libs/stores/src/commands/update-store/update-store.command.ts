import type { CreateStoreInput } from '../../stores.writer';

export class UpdateStoreCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** Store id or name. */
    readonly storeIdentifier: string,
    readonly input: Omit<CreateStoreInput, 'config' | 'file_ids'>,
  ) {}
}

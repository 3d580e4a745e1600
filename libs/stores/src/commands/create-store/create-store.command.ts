import type { ScopeEntry } from '@larder/kernel';
import type { CreateStoreInput } from '../../stores.writer';

export class CreateStoreCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The caller's scope: every file in `file_ids` must be readable with it. */
    readonly scope: ScopeEntry[] | null,
    readonly input: CreateStoreInput,
  ) {}
}

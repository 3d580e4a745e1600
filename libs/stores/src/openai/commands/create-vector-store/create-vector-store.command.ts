import type { ScopeEntry } from '@larder/kernel';
import type { CreateVectorStoreRequestDto } from './create-vector-store.request.dto';

export class CreateVectorStoreCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The caller's scope: every file in `file_ids` must be readable with it. */
    readonly scope: ScopeEntry[] | null,
    readonly input: CreateVectorStoreRequestDto,
  ) {}
}

import type { ScopeEntry } from '@larder/kernel';
import type { CreateVectorStoreFileBatchRequestDto } from './create-vector-store-file-batch.request.dto';

export class CreateVectorStoreFileBatchCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The caller's scope: every file must be readable with it. */
    readonly scope: ScopeEntry[] | null,
    readonly vectorStoreId: string,
    readonly input: CreateVectorStoreFileBatchRequestDto,
  ) {}
}

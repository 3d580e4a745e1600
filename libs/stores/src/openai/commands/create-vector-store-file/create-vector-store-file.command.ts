import type { ScopeEntry } from '@larder/kernel';
import type { CreateVectorStoreFileRequestDto } from './create-vector-store-file.request.dto';

export class CreateVectorStoreFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The caller's scope: the file must be readable with it. */
    readonly scope: ScopeEntry[] | null,
    readonly vectorStoreId: string,
    readonly input: CreateVectorStoreFileRequestDto,
  ) {}
}

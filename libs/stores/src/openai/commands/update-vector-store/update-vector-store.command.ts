import type { UpdateVectorStoreRequestDto } from './update-vector-store.request.dto';

export class UpdateVectorStoreCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly vectorStoreId: string,
    readonly input: UpdateVectorStoreRequestDto,
  ) {}
}

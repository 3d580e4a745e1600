import type { Principal } from '@larder/kernel';
import type { EmbeddingsParams } from './create-embeddings.request.dto';

export class CreateEmbeddingsQuery {
  constructor(
    readonly principal: Principal,
    readonly params: EmbeddingsParams,
  ) {}
}

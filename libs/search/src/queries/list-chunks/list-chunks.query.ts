import type { Principal } from '@larder/kernel';
import type { ListChunksParams } from './list-chunks.request.dto';

export class ListChunksQuery {
  constructor(
    readonly principal: Principal,
    readonly params: ListChunksParams,
  ) {}
}

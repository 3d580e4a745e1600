import type { Principal } from '@larder/kernel';
import type { GrepStoresParams } from './grep-stores.request.dto';

export class GrepStoresQuery {
  constructor(
    readonly principal: Principal,
    readonly params: GrepStoresParams,
  ) {}
}

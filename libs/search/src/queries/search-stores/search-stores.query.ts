import type { Principal } from '@larder/kernel';
import type { Timing } from '../../search.config';
import type { SearchStoresParams } from './search-stores.request.dto';

export class SearchStoresQuery {
  constructor(
    readonly principal: Principal,
    readonly params: SearchStoresParams,
    /** Receives the time spent per step (ms), for the Server-Timing header. */
    readonly timing: Timing = {},
  ) {}
}

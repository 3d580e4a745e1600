import type { LiveEvents, Principal } from '@larder/kernel';
import type { SearchStoresParams } from './search-stores.request.dto';

export class SearchStoresQuery {
  constructor(
    readonly principal: Principal,
    readonly params: SearchStoresParams,
    /** A streamed search (`stream: true`): the live trace goes here. */
    readonly live?: LiveEvents,
    /** Aborts when the client goes away: an agentic search stops. */
    readonly signal?: AbortSignal,
    /** Sets a response header (before a stream opens): `Larder-Web-Search` of a search naming the web store. */
    readonly setHeader?: (name: string, value: string) => void,
  ) {}
}

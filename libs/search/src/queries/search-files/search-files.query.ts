import type { Principal, StoreFileViewer } from '@larder/kernel';
import type { Timing } from '../../search.config';
import type { SearchFilesParams } from './search-files.request.dto';

export class SearchFilesQuery {
  constructor(
    readonly principal: Principal,
    readonly params: SearchFilesParams,
    /** Who the store files are answered for (their `content_url`). */
    readonly viewer: StoreFileViewer,
    /** Receives the time spent per step (ms), for the Server-Timing header. */
    readonly timing: Timing = {},
  ) {}
}

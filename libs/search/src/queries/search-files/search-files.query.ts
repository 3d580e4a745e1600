import type { Principal, StoreFileViewer } from '@larder/kernel';
import type { SearchFilesParams } from './search-files.request.dto';

export class SearchFilesQuery {
  constructor(
    readonly principal: Principal,
    readonly params: SearchFilesParams,
    /** Who the store files are answered for (their `content_url`). */
    readonly viewer: StoreFileViewer,
  ) {}
}

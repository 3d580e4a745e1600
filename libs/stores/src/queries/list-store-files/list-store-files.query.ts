import type { CursorRequest } from '@larder/kernel';
import type { StoreFileViewer } from '../../content-urls';

export class ListStoreFilesQuery {
  constructor(
    readonly organizationId: string,
    readonly viewer: StoreFileViewer,
    /** Store id or name. */
    readonly storeIdentifier: string,
    readonly paging: CursorRequest,
    readonly statuses: string[] | null,
    /** A file-metadata filter as sent (`metadata_filter`), parsed by the handler. */
    readonly metadataFilter: unknown = undefined,
    /** Fuzzy match on the file name. */
    readonly q: string | null = null,
  ) {}
}

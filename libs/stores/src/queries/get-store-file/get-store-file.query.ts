import type { StoreFileViewer } from '../../content-urls';

export class GetStoreFileQuery {
  constructor(
    readonly organizationId: string,
    readonly viewer: StoreFileViewer,
    /** Store id or name. */
    readonly storeIdentifier: string,
    /** File id, external id or file name. */
    readonly fileIdentifier: string,
    /** All chunks (null), none (undefined), or these chunk indices. */
    readonly chunks: number[] | null | undefined,
  ) {}
}

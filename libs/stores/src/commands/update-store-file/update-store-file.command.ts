import type { StoreFileViewer } from '../../content-urls';

export class UpdateStoreFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly viewer: StoreFileViewer,
    /** Store id or name. */
    readonly storeIdentifier: string,
    /** File id, external id or file name. */
    readonly fileIdentifier: string,
    readonly metadata: unknown,
  ) {}
}

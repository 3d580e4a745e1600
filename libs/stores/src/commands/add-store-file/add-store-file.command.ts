import type { AddStoreFileInput } from '../../store-files.writer';
import type { StoreFileViewer } from '../../content-urls';

export class AddStoreFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The caller's scope (attaching needs `read` on the file) and base URL. */
    readonly viewer: StoreFileViewer,
    /** Store id or name. */
    readonly storeIdentifier: string,
    readonly input: AddStoreFileInput,
  ) {}
}

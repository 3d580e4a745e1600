import type { IncomingFile } from '@larder/kernel';
import type { StoreFileViewer } from '../../content-urls';

/**
 * Reads a multipart body: streams its `file` part into `consume` and collects the text parts the route
 * takes (a promise settled once the body is read; rejected with a 422 for a part it does not take).
 */
export type MultipartBody = <T>(
  consume: (file: IncomingFile, fields: Promise<Record<string, string>>) => Promise<T>,
) => Promise<{ result: T }>;

export class UploadStoreFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly viewer: StoreFileViewer,
    /** Store id or name. */
    readonly storeIdentifier: string,
    readonly body: MultipartBody,
  ) {}
}

import type { IncomingFile } from '@larder/kernel';
import type { StoreFileViewer } from '../../content-urls';

/**
 * Reads a multipart body: streams its `file` part into `consume` and collects the other parts as text
 * (also handed to `consume` as a promise that settles once the whole body is read).
 */
export type MultipartBody = <T>(consume: (file: IncomingFile, fields: Promise<Record<string, string>>) => Promise<T>) => Promise<{ result: T; fields: Record<string, string> }>;

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

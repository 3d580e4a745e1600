export class DownloadStoreFileContentQuery {
  constructor(
    readonly storeId: string,
    readonly fileId: string,
    /** The signed URL's `expires` and `signature`: they are the whole authority of this public route. */
    readonly expires: string | undefined,
    readonly signature: string | undefined,
  ) {}
}

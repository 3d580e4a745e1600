import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, StoreFileViewer } from '@larder/kernel';
import type { StoreFileRow } from '@larder/projections/stores/store-files.reader';
import { IndexedChunk } from '@larder/chunk-index';
import { ContentUrlSigner } from './content-url.signer';
import { STORES_CONFIG, StoresConfig } from './stores.config';
import { mayReadStore } from './authority';
import { StoreFileResponse, toStoreFileResponse } from './store.response';

/** Who a store file answer is for (declared in the kernel: the file-search port takes it too). */
export type { StoreFileViewer } from '@larder/kernel';

/**
 * Signed, expiring `content_url`s. The URL downloads the content without an API key, so it is
 * handed only to a key that may `read` the store: `list` (or `write`) never grants content.
 */
@Injectable()
export class ContentUrls {
  private readonly signer: ContentUrlSigner;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(STORES_CONFIG) private readonly config: StoresConfig,
  ) {
    this.signer = new ContentUrlSigner(config.signingSecret);
  }

  /** The signed URL of a store file's content, or null where the viewer may not read the store. */
  for(f: StoreFileRow, viewer: StoreFileViewer): string | null {
    if (!mayReadStore(viewer.scope, f.storeId)) return null;
    const base = this.config.publicUrl ?? viewer.baseUrl;
    const expires = Math.floor(this.clock.now().getTime() / 1000) + this.config.contentUrlTtlSeconds;
    return this.signer.url(base, f.storeId, f.fileId, expires);
  }

  /** The `StoreFile` answer for this viewer. */
  respond(f: StoreFileRow, viewer: StoreFileViewer, chunks?: IndexedChunk[]): StoreFileResponse {
    return toStoreFileResponse(f, this.for(f, viewer), chunks);
  }

  verify(storeId: string, fileId: string, expires: string | undefined, signature: string | undefined): boolean {
    return this.signer.verify(storeId, fileId, expires, signature, this.clock.now().getTime());
  }
}

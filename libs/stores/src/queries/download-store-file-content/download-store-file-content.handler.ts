import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Readable } from 'stream';
import { NotFoundError } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage, BlobNotFoundError } from '@larder/blob-storage';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { ContentUrls } from '../../content-urls';
import { DownloadStoreFileContentQuery } from './download-store-file-content.query';

/** What the content route sends: headers and the original bytes. */
export interface StoreFileContent {
  filename: string;
  mimeType: string;
  bytes: number;
  body: Readable;
}

/** A valid, unexpired signature names the store and file; a bad or expired one is a 404, like a file no longer in the store. */
@QueryHandler(DownloadStoreFileContentQuery)
export class DownloadStoreFileContentHandler implements IQueryHandler<DownloadStoreFileContentQuery, StoreFileContent> {
  constructor(
    private readonly reader: StoreFilesReader,
    private readonly contentUrls: ContentUrls,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
  ) {}

  async execute(q: DownloadStoreFileContentQuery): Promise<StoreFileContent> {
    if (!this.contentUrls.verify(q.storeId, q.fileId, q.expires, q.signature))
      throw new NotFoundError('This content URL is invalid or has expired');
    const organizationId = await this.reader.organizationOf(q.storeId, q.fileId);
    if (!organizationId) throw new NotFoundError('This file is no longer in the store');
    const f = await this.reader.get(organizationId, q.storeId, q.fileId);
    if (!f) throw new NotFoundError('This file is no longer in the store');
    // the version the store holds was replaced (its content is gone) until the store file is re-added
    const body = await this.blobs.get(f.blobKey).catch((err: Error) => {
      if (err instanceof BlobNotFoundError)
        throw new NotFoundError('This version of the file was replaced or deleted; its content is no longer available');
      throw err;
    });
    return { filename: f.filename, mimeType: f.mimeType, bytes: f.bytes, body };
  }
}

import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Readable } from 'stream';
import { NotFoundError } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage, ByteRange } from '@larder/blob-storage';
import { FilesReader } from '@larder/projections/files/files.reader';
import { DownloadFileQuery } from './download-file.query';

/** What a download needs: the file's headers and a way to open (part of) its content. */
export interface FileDownload {
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  updatedAt: Date;
  open(range?: ByteRange): Promise<Readable>;
}

@QueryHandler(DownloadFileQuery)
export class DownloadFileHandler implements IQueryHandler<DownloadFileQuery, FileDownload> {
  constructor(
    private readonly reader: FilesReader,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
  ) {}

  async execute(q: DownloadFileQuery): Promise<FileDownload> {
    const f = await this.reader.get(q.organizationId, q.fileId);
    if (!f) throw new NotFoundError(`File ${q.fileId} not found`);
    return {
      filename: f.filename,
      mimeType: f.mimeType,
      bytes: Number(f.bytes),
      sha256: f.sha256,
      updatedAt: f.updatedAt,
      open: (range) => this.blobs.get(f.blobKey, range),
    };
  }
}

import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage, PartInfo } from '@larder/blob-storage';
import { FileUploadRow, FileUploadsReader } from '@larder/projections/file-uploads/file-uploads.reader';
import { partRange, PartUrls } from '../../part-urls';
import { toUploadObject, UploadDetail } from '../../upload.response';
import { GetUploadQuery } from './get-upload.query';

/** An upload in progress with the parts received so far and fresh URLs for the missing ones (resuming). */
@QueryHandler(GetUploadQuery)
export class GetUploadHandler implements IQueryHandler<GetUploadQuery, UploadDetail> {
  constructor(
    private readonly reader: FileUploadsReader,
    private readonly partUrls: PartUrls,
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
  ) {}

  async execute(q: GetUploadQuery): Promise<UploadDetail> {
    const u = await this.reader.get(q.organizationId, q.uploadId);
    if (!u || u.status !== 'in_progress') throw new NotFoundError(`Upload ${q.uploadId} not found`);
    const parts = await this.receivedParts(u);
    const done = new Set(parts.map((p) => p.partNumber));
    return {
      ...toUploadObject(u),
      completed_parts: parts.map((p) => ({ part_number: p.partNumber, etag: p.etag })),
      part_urls: await this.partUrls.for(
        u,
        q.baseUrl,
        partRange(1, u.partCount).filter((n) => !done.has(n)),
      ),
    };
  }

  /** Parts Larder received itself are in the read model; parts the storage took directly (S3) are listed there. */
  private async receivedParts(u: FileUploadRow): Promise<PartInfo[]> {
    const local = Object.entries(u.parts).map(([n, p]) => ({
      partNumber: Number(n),
      etag: p.etag,
      bytes: Number(p.bytes),
    }));
    if (local.length) return local.sort((a, b) => a.partNumber - b.partNumber);
    try {
      return await this.blobs.listParts(u.blobKey, u.storageUploadId);
    } catch {
      return [];
    }
  }
}

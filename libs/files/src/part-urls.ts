import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@larder/kernel';
import { BLOB_STORAGE, BlobStorage } from '@larder/blob-storage';
import { FILES_CONFIG, FilesConfig } from './files.config';
import { PartUrlSigner } from './part-url.signer';

export interface PartUrl {
  part_number: number;
  url: string;
}

/** Part URLs of a multipart upload: presigned by the storage (S3), or signed by Larder (local disk). */
@Injectable()
export class PartUrls {
  private readonly signer: PartUrlSigner;

  constructor(
    @Inject(BLOB_STORAGE) private readonly blobs: BlobStorage,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(FILES_CONFIG) private readonly config: FilesConfig,
  ) {
    this.signer = new PartUrlSigner(config.signingSecret);
  }

  async for(
    upload: { id: string; blobKey: string; storageUploadId: string },
    baseUrl: string,
    numbers: number[],
  ): Promise<PartUrl[]> {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + this.config.partUrlTtlSeconds;
    const out: PartUrl[] = [];
    for (const n of numbers) {
      const presigned = await this.blobs.presignPart(
        upload.blobKey,
        upload.storageUploadId,
        n,
        this.config.partUrlTtlSeconds,
      );
      out.push({
        part_number: n,
        url: presigned ?? this.signer.url(this.config.publicUrl ?? baseUrl, upload.id, n, expires),
      });
    }
    return out;
  }

  /** 'ok', or why a part URL Larder signed is refused. */
  verify(
    uploadId: string,
    partNumber: number,
    expires: string | undefined,
    signature: string | undefined,
  ): 'ok' | 'invalid' | 'expired' {
    return this.signer.verify(uploadId, partNumber, expires, signature, this.clock.now().getTime());
  }
}

export function partRange(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

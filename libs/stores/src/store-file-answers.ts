import { Injectable } from '@nestjs/common';
import { StoreFileViewer, StoreFileViews, storeFileKey } from '@larder/kernel';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { ContentUrls } from './content-urls';

/**
 * `STORE_FILE_VIEWS`: store files as `StoreFile` answers (the mapper and content URLs every store-file
 * route uses) for another context; file search ranks chunks and asks here for the files they belong to.
 */
@Injectable()
export class StoreFileAnswers implements StoreFileViews {
  constructor(
    private readonly reader: StoreFilesReader,
    private readonly contentUrls: ContentUrls,
  ) {}

  async view(
    organizationId: string,
    files: Array<{ storeId: string; fileId: string }>,
    viewer: StoreFileViewer,
  ): Promise<Map<string, Record<string, unknown>>> {
    const rows = await this.reader.many(organizationId, files);
    return new Map(rows.map((r) => [storeFileKey(r.storeId, r.fileId), this.contentUrls.respond(r, viewer)]));
  }
}

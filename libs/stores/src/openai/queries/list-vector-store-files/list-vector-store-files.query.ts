import type { IdCursorRequest } from '@larder/kernel';
import type { OpenAiFileStatus } from '../../vector-store.response';

export class ListVectorStoreFilesQuery {
  constructor(
    readonly organizationId: string,
    readonly vectorStoreId: string,
    readonly paging: IdCursorRequest,
    readonly status: OpenAiFileStatus | null,
    /** Only the files of this batch (`…/file_batches/{id}/files`). */
    readonly batchId: string | null = null,
  ) {}
}

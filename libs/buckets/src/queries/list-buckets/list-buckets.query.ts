import type { CursorRequest } from '@larder/kernel';

export class ListBucketsQuery {
  constructor(
    readonly organizationId: string,
    readonly paging: CursorRequest,
  ) {}
}

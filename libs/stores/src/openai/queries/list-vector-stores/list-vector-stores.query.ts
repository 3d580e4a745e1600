import type { IdCursorRequest } from '@larder/kernel';

export class ListVectorStoresQuery {
  constructor(
    readonly organizationId: string,
    readonly paging: IdCursorRequest,
  ) {}
}
